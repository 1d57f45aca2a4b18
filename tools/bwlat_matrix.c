/*
 * tools/bwlat_matrix.c - the matrices of p2pBandwidthLatencyTest
 * (tools/bwlat.h): their names, as case files and --matrix give them, and
 * their headings. Apart from bwlat_job.c so that what reads the names (the
 * case reader, tools/validate_case.c) links without the measurements.
 */
#include <config.h>

#include <string.h>

#include "tools/bwlat.h"

const struct bwlat_matrix_info bwlat_matrices[BWLAT_N_MATRICES] = {
    [BWLAT_UNI_DISABLED] = { "uni_p2p_disabled_GBps",
        "Unidirectional P2P=Disabled Bandwidth Matrix (GB/s)", "   D\\D",
        "GB/s" },
    [BWLAT_UNI_ENABLED] = { "uni_p2p_enabled_GBps",
        "Unidirectional P2P=Enabled Bandwidth (P2P Writes) Matrix (GB/s)",
        "   D\\D", "GB/s" },
    [BWLAT_UNI_ENABLED_READ] = { "uni_p2p_enabled_read_GBps",
        "Unidirectional P2P=Enabled Bandwidth (P2P Reads) Matrix (GB/s)",
        "   D\\D", "GB/s" },
    [BWLAT_BIDIR_DISABLED] = { "bidir_p2p_disabled_GBps",
        "Bidirectional P2P=Disabled Bandwidth Matrix (GB/s)", "   D\\D",
        "GB/s" },
    [BWLAT_BIDIR_ENABLED] = { "bidir_p2p_enabled_GBps",
        "Bidirectional P2P=Enabled Bandwidth Matrix (GB/s)", "   D\\D",
        "GB/s" },
    [BWLAT_LAT_DISABLED_GPU] = { "latency_p2p_disabled_gpu_us",
        "P2P=Disabled Latency Matrix (us)", "   GPU", "us" },
    [BWLAT_LAT_DISABLED_CPU] = { "latency_p2p_disabled_cpu_us", NULL,
        "   CPU", "us" },
    [BWLAT_LAT_ENABLED_GPU] = { "latency_p2p_enabled_gpu_us",
        "P2P=Enabled Latency (P2P Writes) Matrix (us)", "   GPU", "us" },
    [BWLAT_LAT_ENABLED_CPU] = { "latency_p2p_enabled_cpu_us", NULL,
        "   CPU", "us" },
    [BWLAT_LAT_ENABLED_READ_GPU] = { "latency_p2p_enabled_read_gpu_us",
        "P2P=Enabled Latency (P2P Reads) Matrix (us)", "   GPU", "us" },
    [BWLAT_LAT_ENABLED_READ_CPU] = { "latency_p2p_enabled_read_cpu_us", NULL,
        "   CPU", "us" },
};

int bwlat_matrix_find(const char *name)
{
    for (int m = 0; m < BWLAT_N_MATRICES; m++) {
        if (strcmp(bwlat_matrices[m].name, name) == 0) {
            return m;
        }
    }
    return -1;
}
