/* fio's num2str(): numbers with a number of significant figures, SI or IEC prefixes, units. */
#include "fio-units.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "util.h"

static int digits(uint64_t v)
{
        int n = 1;
        while (v >= 10) {
                v /= 10;
                n++;
        }
        return n;
}

const char *fio_units_str(char *buf, size_t len, uint64_t num, int maxlen, bool pow2,
                          fio_unit_t unit)
{
        static const char *const si[] = {"", "k", "M", "G", "T", "P", "E"};
        static const char *const iec[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
        static const char *const units[] = {
            [FIO_UNIT_NONE] = "",
            [FIO_UNIT_BYTE] = "B",
            [FIO_UNIT_BYTE_PER_SEC] = "B/s",
            [FIO_UNIT_BIT_PER_SEC] = "bit/s",
        };
        const char *const *prefix = pow2 ? iec : si;
        uint64_t step = pow2 ? 1024 : 1000, rest = 0;
        bool divided = false, up = false;
        size_t p = 0;
        char frac[32];
        int room;

        if (maxlen < 1)
                maxlen = 1;
        if (unit == FIO_UNIT_BIT_PER_SEC)
                num *= 8;
        /* Step down until the number fits; what the last step dropped decides the rounding. */
        while (p < ELEMENTSOF(si) && digits(num) > maxlen) {
                rest = num % step;
                num /= step;
                up = rest >= step / 2;
                divided = true;
                p++;
        }
        if (p >= ELEMENTSOF(si))
                p = 0; /* past exa: fio then prints no prefix */
        room = maxlen - digits(num);
        if (divided && room > 1) {
                /* the dropped part as decimals, as many as still fit after the point */
                snprintf(frac, sizeof(frac), "%.*f", room - 1, (double)rest / (double)step);
                if (frac[0] == '1')
                        num++; /* rounded up to a whole one: ".000" follows */
                snprintf(buf, len, "%" PRIu64 ".%s%s%s", num, frac + 2, prefix[p], units[unit]);
                return buf;
        }
        if (divided && up)
                num++;
        snprintf(buf, len, "%" PRIu64 "%s%s", num, prefix[p], units[unit]);
        return buf;
}
