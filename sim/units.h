/*
 * sim/units.h - strict parsing of numbers with units ("150ns", "64GiB",
 * "25GB/s"), used by property lists and the topology loader.
 *
 * Rules: a decimal number (digits, optionally a point and more digits), no
 * sign, no exponent, directly followed by a unit from the list below; the
 * result must be a whole number of the base unit and fit in 64 bits. "1.5ns"
 * is 1500 ps; "0.5ps" is refused (not a whole picosecond). Units are
 * case-sensitive: "KB" is 1000 bytes and "KiB" 1024; "Gb/s" is gigabits.
 *
 *   time   (base: ps)            ps ns us ms s
 *   size   (base: byte)          B KB MB GB TB KiB MiB GiB TiB
 *   rate   (base: byte/s)        B/s KB/s MB/s GB/s TB/s KiB/s MiB/s GiB/s
 *                                bit rates: b/s Kb/s Mb/s Gb/s Tb/s
 *   frequency (base: Hz)         Hz KHz MHz GHz (kHz accepted)
 */
#ifndef P2PSIM_SIM_UNITS_H
#define P2PSIM_SIM_UNITS_H

#include <stddef.h>
#include <stdint.h>

#include "sim/time.h"

struct sim_unit {
    const char *suffix;
    uint64_t num;               /* value = number * num / den */
    uint64_t den;
};

extern const struct sim_unit sim_units_time[];
extern const struct sim_unit sim_units_size[];
extern const struct sim_unit sim_units_rate[];
extern const struct sim_unit sim_units_freq[];

/*
 * sim_parse_with_units - parse s against a NULL-terminated unit table.
 * Returns 0, or -SIM_ESYNTAX / -SIM_ERANGE with a reason in why (which
 * names the accepted units).
 */
int sim_parse_with_units(const char *s, const struct sim_unit *units,
                         uint64_t *out, char *why, size_t why_len);

int sim_parse_time(const char *s, sim_time_t *out_ps, char *why, size_t n);
int sim_parse_size(const char *s, uint64_t *out_bytes, char *why, size_t n);
int sim_parse_rate(const char *s, uint64_t *out_bytes_per_s, char *why,
                   size_t n);
int sim_parse_freq(const char *s, uint64_t *out_hz, char *why, size_t n);
/* A plain unsigned integer (decimal, or 0x hexadecimal). */
int sim_parse_u64(const char *s, uint64_t *out, char *why, size_t n);

/* "1.5 ns", "64 GiB", "25.00 GB/s": human formatting for reports. */
const char *sim_format_time(sim_time_t ps, char *buf, size_t n);
const char *sim_format_size(uint64_t bytes, char *buf, size_t n);

#endif /* P2PSIM_SIM_UNITS_H */
