/*
 * sim/units.c - number-with-unit parsing and formatting.
 */
#include <config.h>

#include "sim/units.h"

#include <stdio.h>
#include <string.h>

#include "sim/error.h"

const struct sim_unit sim_units_time[] = {
    { "ps", 1, 1 }, { "ns", 1000, 1 }, { "us", 1000000, 1 },
    { "ms", UINT64_C(1000000000), 1 }, { "s", UINT64_C(1000000000000), 1 },
    { NULL, 0, 0 },
};

const struct sim_unit sim_units_size[] = {
    { "B", 1, 1 },
    { "KB", UINT64_C(1000), 1 }, { "MB", UINT64_C(1000000), 1 },
    { "GB", UINT64_C(1000000000), 1 }, { "TB", UINT64_C(1000000000000), 1 },
    { "KiB", UINT64_C(1) << 10, 1 }, { "MiB", UINT64_C(1) << 20, 1 },
    { "GiB", UINT64_C(1) << 30, 1 }, { "TiB", UINT64_C(1) << 40, 1 },
    { NULL, 0, 0 },
};

const struct sim_unit sim_units_rate[] = {
    { "B/s", 1, 1 },
    { "KB/s", UINT64_C(1000), 1 }, { "MB/s", UINT64_C(1000000), 1 },
    { "GB/s", UINT64_C(1000000000), 1 }, { "TB/s", UINT64_C(1000000000000), 1 },
    { "KiB/s", UINT64_C(1) << 10, 1 }, { "MiB/s", UINT64_C(1) << 20, 1 },
    { "GiB/s", UINT64_C(1) << 30, 1 },
    { "b/s", 1, 8 },
    { "Kb/s", UINT64_C(1000), 8 }, { "Mb/s", UINT64_C(1000000), 8 },
    { "Gb/s", UINT64_C(1000000000), 8 }, { "Tb/s", UINT64_C(1000000000000), 8 },
    { NULL, 0, 0 },
};

const struct sim_unit sim_units_freq[] = {
    { "Hz", 1, 1 }, { "KHz", 1000, 1 }, { "kHz", 1000, 1 },
    { "MHz", 1000000, 1 }, { "GHz", UINT64_C(1000000000), 1 },
    { NULL, 0, 0 },
};

static void list_units(const struct sim_unit *units, char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (const struct sim_unit *u = units; u->suffix && used < n; u++) {
        int w = snprintf(buf + used, n - used, "%s%s",
                         u == units ? "" : ", ", u->suffix);
        if (w < 0) {
            break;
        }
        used += (size_t)w;
    }
}

int sim_parse_with_units(const char *s, const struct sim_unit *units,
                         uint64_t *out, char *why, size_t why_len)
{
    char accepted[160];
    char dummy[4];
    if (!why || why_len == 0) {
        why = dummy;
        why_len = sizeof(dummy);
    }
    list_units(units, accepted, sizeof(accepted));
    const char *p = s;
    __uint128_t mant = 0;
    unsigned frac = 0;
    int digits = 0;
    while (*p >= '0' && *p <= '9') {
        mant = mant * 10 + (unsigned)(*p++ - '0');
        if (mant > ((__uint128_t)1 << 100)) {
            snprintf(why, why_len, "'%s' is too large", s);
            return -SIM_ERANGE;
        }
        digits++;
    }
    if (*p == '.') {
        p++;
        while (*p >= '0' && *p <= '9') {
            mant = mant * 10 + (unsigned)(*p++ - '0');
            if (mant > ((__uint128_t)1 << 100) || ++frac > 18) {
                snprintf(why, why_len, "'%s' has too many digits", s);
                return -SIM_ERANGE;
            }
            digits++;
        }
    }
    if (digits == 0) {
        snprintf(why, why_len, "'%s' is not a number with a unit (units: %s)",
                 s, accepted);
        return -SIM_ESYNTAX;
    }
    if (*p == '\0') {
        snprintf(why, why_len, "'%s' has no unit (write e.g. '%s%s'; units: %s)",
                 s, s, units[0].suffix, accepted);
        return -SIM_ESYNTAX;
    }
    const struct sim_unit *u = units;
    while (u->suffix && strcmp(u->suffix, p) != 0) {
        u++;
    }
    if (!u->suffix) {
        snprintf(why, why_len, "unknown unit '%s' in '%s' (units: %s)", p, s,
                 accepted);
        return -SIM_ESYNTAX;
    }
    __uint128_t den = u->den;
    for (unsigned i = 0; i < frac; i++) {
        den *= 10;
    }
    __uint128_t num = mant * u->num;
    if (num % den != 0) {
        snprintf(why, why_len, "'%s' is not a whole number of %s", s,
                 units[0].suffix);
        return -SIM_ERANGE;
    }
    num /= den;
    if (num > UINT64_MAX) {
        snprintf(why, why_len, "'%s' is too large", s);
        return -SIM_ERANGE;
    }
    *out = (uint64_t)num;
    return 0;
}

int sim_parse_time(const char *s, sim_time_t *out, char *why, size_t n)
{
    return sim_parse_with_units(s, sim_units_time, out, why, n);
}

int sim_parse_size(const char *s, uint64_t *out, char *why, size_t n)
{
    return sim_parse_with_units(s, sim_units_size, out, why, n);
}

int sim_parse_rate(const char *s, uint64_t *out, char *why, size_t n)
{
    return sim_parse_with_units(s, sim_units_rate, out, why, n);
}

int sim_parse_freq(const char *s, uint64_t *out, char *why, size_t n)
{
    return sim_parse_with_units(s, sim_units_freq, out, why, n);
}

int sim_parse_u64(const char *s, uint64_t *out, char *why, size_t n)
{
    char dummy[4];
    if (!why || n == 0) {
        why = dummy;
        n = sizeof(dummy);
    }
    const char *p = s;
    unsigned base = 10;
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        base = 16;
        p += 2;
    }
    if (*p == '\0') {
        snprintf(why, n, "'%s' is not an unsigned integer", s);
        return -SIM_ESYNTAX;
    }
    uint64_t v = 0;
    for (; *p; p++) {
        unsigned d;
        if (*p >= '0' && *p <= '9') {
            d = (unsigned)(*p - '0');
        } else if (base == 16 && *p >= 'a' && *p <= 'f') {
            d = (unsigned)(*p - 'a' + 10);
        } else if (base == 16 && *p >= 'A' && *p <= 'F') {
            d = (unsigned)(*p - 'A' + 10);
        } else {
            snprintf(why, n, "'%s' is not an unsigned integer", s);
            return -SIM_ESYNTAX;
        }
        if (v > (UINT64_MAX - d) / base) {
            snprintf(why, n, "'%s' is too large", s);
            return -SIM_ERANGE;
        }
        v = v * base + d;
    }
    *out = v;
    return 0;
}

const char *sim_format_time(sim_time_t ps, char *buf, size_t n)
{
    if (ps < SIM_PS_PER_NS) {
        snprintf(buf, n, "%llu ps", (unsigned long long)ps);
    } else if (ps < SIM_PS_PER_US) {
        snprintf(buf, n, "%.3f ns", (double)ps / 1e3);
    } else if (ps < SIM_PS_PER_MS) {
        snprintf(buf, n, "%.3f us", (double)ps / 1e6);
    } else if (ps < SIM_PS_PER_S) {
        snprintf(buf, n, "%.3f ms", (double)ps / 1e9);
    } else {
        snprintf(buf, n, "%.3f s", (double)ps / 1e12);
    }
    return buf;
}

const char *sim_format_size(uint64_t bytes, char *buf, size_t n)
{
    static const char *const suffix[] = { "B", "KiB", "MiB", "GiB", "TiB" };
    double v = (double)bytes;
    unsigned i = 0;
    while (v >= 1024.0 && i < 4) {
        v /= 1024.0;
        i++;
    }
    if (i == 0) {
        snprintf(buf, n, "%llu B", (unsigned long long)bytes);
    } else {
        snprintf(buf, n, "%.2f %s", v, suffix[i]);
    }
    return buf;
}

sim_time_t sim_time_for_bytes(uint64_t len_bytes, uint64_t rate_bytes_per_s)
{
    if (rate_bytes_per_s == 0 || len_bytes == 0) {
        return 0;
    }
    __uint128_t num = (__uint128_t)len_bytes * SIM_PS_PER_S;
    __uint128_t t = (num + rate_bytes_per_s - 1) / rate_bytes_per_s;
    return t > SIM_TIME_MAX ? SIM_TIME_MAX : (sim_time_t)t;
}
