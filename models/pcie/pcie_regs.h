/*
 * models/pcie/pcie_regs.h - register fields our models use, named as
 * Linux include/uapi/linux/pci_regs.h names them (written from the spec;
 * values are facts, PCIe r6.0 §7.7.8 for ACS).
 */
#ifndef P2PSIM_MODELS_PCIE_PCIE_REGS_H
#define P2PSIM_MODELS_PCIE_PCIE_REGS_H

/* ACS Capability / Control register bits */
#define PCI_ACS_SV 0x0001       /* Source Validation */
#define PCI_ACS_TB 0x0002       /* Translation Blocking */
#define PCI_ACS_RR 0x0004       /* P2P Request Redirect */
#define PCI_ACS_CR 0x0008       /* P2P Completion Redirect */
#define PCI_ACS_UF 0x0010       /* Upstream Forwarding */
#define PCI_ACS_EC 0x0020       /* P2P Egress Control */
#define PCI_ACS_DT 0x0040       /* Direct Translated P2P */

/* Device Control: MPS and MRRS fields encode 128 << n */
#define PCI_EXP_DEVCTL_PAYLOAD 0x00e0
#define PCI_EXP_DEVCTL_READRQ 0x7000

#endif /* P2PSIM_MODELS_PCIE_PCIE_REGS_H */
