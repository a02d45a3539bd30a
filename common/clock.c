/* Clocks, the NTP-style offset estimate between an agent and the coordinator timeline, and precise
 * sleeps. */
#include "clock.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sched.h>
#include <time.h>

static int64_t test_offset_ns;

static int64_t read_clock(clockid_t id)
{
        struct timespec ts;
        clock_gettime(id, &ts);
        return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int64_t clock_mono_ns(void)
{
        return read_clock(CLOCK_MONOTONIC);
}

int64_t clock_real_ns(void)
{
        return read_clock(CLOCK_REALTIME);
}

void clock_set_test_offset(int64_t offset_ns)
{
        test_offset_ns = offset_ns;
}

int64_t clock_local_ns(void)
{
        return clock_mono_ns() + test_offset_ns;
}

int64_t clock_local_to_mono(int64_t local_ns)
{
        return local_ns - test_offset_ns;
}

int clock_sample(int64_t t1, int64_t t2, int64_t t3, int64_t t4, time_sample_t *ret)
{
        int64_t out, hold, a, b;
        /* t1..t3 come from the peer: a difference that does not fit in 64 bits is refused,
         * never computed. out and hold are then >= 0, so out - hold cannot overflow. */
        if (t4 < t1 || t3 < t2 || __builtin_sub_overflow(t4, t1, &out) ||
            __builtin_sub_overflow(t3, t2, &hold) || out < hold ||
            __builtin_sub_overflow(t2, t1, &a) || __builtin_sub_overflow(t3, t4, &b))
                return -EINVAL;
        /* ((t2 - t1) + (t3 - t4)) / 2 without the sum overflowing: halves separately, then adds
         * back the two halves the divisions dropped. */
        ret->offset_ns = a / 2 + b / 2 + (a % 2 + b % 2) / 2;
        ret->rtt_ns = out - hold;
        ret->at_ns = t4;
        return 0;
}

void clock_sync_reset(clock_sync_t *cs)
{
        cs->n = cs->next = 0;
}

void clock_sync_add(clock_sync_t *cs, const time_sample_t *s)
{
        cs->samples[cs->next] = *s;
        cs->next = (cs->next + 1) % CLOCK_SYNC_WINDOW;
        if (cs->n < CLOCK_SYNC_WINDOW)
                cs->n++;
}

int clock_sync_best(const clock_sync_t *cs, int64_t since_ns, time_sample_t *ret)
{
        const time_sample_t *best = NULL;
        for (size_t i = 0; i < cs->n; i++) {
                const time_sample_t *s = &cs->samples[i];
                if (s->at_ns < since_ns)
                        continue;
                if (!best || s->rtt_ns < best->rtt_ns)
                        best = s;
        }
        if (!best)
                return -ENODATA;
        *ret = *best;
        return 0;
}

int64_t clock_sleep_until_mono(int64_t target_ns, int64_t spin_ns)
{
        int64_t wake = target_ns - spin_ns, now;
        struct timespec ts = {.tv_sec = wake / 1000000000LL, .tv_nsec = wake % 1000000000LL};

        if (wake > clock_mono_ns())
                while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
                        ;
        /* Yielding while spinning lets other spinners (other agents' starters on a small host)
         * have the CPU between two looks at the clock. */
        while ((now = clock_mono_ns()) < target_ns)
                sched_yield();
        return now;
}

const char *clock_format_duration(int64_t ns, char *buf, size_t len)
{
        /* llabs(INT64_MIN) is undefined; durations may come off the wire. */
        uint64_t a = ns < 0 ? 0 - (uint64_t)ns : (uint64_t)ns;
        if (a < 1000)
                snprintf(buf, len, "%lldns", (long long)ns);
        else if (a < 1000000)
                snprintf(buf, len, "%.1fus", ns / 1e3);
        else if (a < 1000000000)
                snprintf(buf, len, "%.2fms", ns / 1e6);
        else
                snprintf(buf, len, "%.3fs", ns / 1e9);
        return buf;
}
