/* Per-peer rate limits for log lines: a few lines per peer and interval, then one count of the
 * lines held back, so a flood of bad input cannot flood the log. */
#include "ratelimit.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "idmap.h"

typedef struct entry {
        int64_t start;       /* when its current interval began */
        unsigned lines;      /* allowed in the current interval */
        uint64_t suppressed; /* since the last line or summary that reported them */
        char peer[];         /* the map's key */
} entry_t;

struct ratelimit {
        int64_t interval;
        unsigned burst;
        size_t max_peers;
        entry_t **v;
        size_t n;
        idmap_t *by_peer;
        entry_t *others; /* peers beyond max_peers */
        uint64_t total;
};

static entry_t *entry_new(const char *peer, int64_t now)
{
        size_t len = strlen(peer);
        entry_t *e = calloc(1, sizeof(*e) + len + 1);
        if (e) {
                memcpy(e->peer, peer, len + 1);
                e->start = now;
        }
        return e;
}

int ratelimit_new(int64_t interval_ns, unsigned burst, size_t max_peers, ratelimit_t **ret)
{
        ratelimit_t *rl;
        if (interval_ns <= 0 || max_peers == 0)
                return -EINVAL;
        rl = calloc(1, sizeof(*rl));
        if (!rl)
                return -ENOMEM;
        rl->interval = interval_ns;
        rl->burst = burst;
        rl->max_peers = max_peers;
        rl->v = calloc(max_peers, sizeof(*rl->v));
        rl->others = entry_new(RATELIMIT_OTHERS, 0);
        if (!rl->v || !rl->others || idmap_new(&rl->by_peer) < 0) {
                ratelimit_free(&rl);
                return -ENOMEM;
        }
        *ret = rl;
        return 0;
}

void ratelimit_free(ratelimit_t **rp)
{
        ratelimit_t *rl = *rp;
        if (!rl)
                return;
        for (size_t i = 0; i < rl->n; i++)
                free(rl->v[i]);
        free(rl->v);
        free(rl->others);
        idmap_free(&rl->by_peer);
        free(rl);
        *rp = NULL;
}

/* The peer's entry; a new one while there is room, else the shared one. Never NULL. */
static entry_t *lookup(ratelimit_t *rl, const char *peer, int64_t now)
{
        entry_t *e = idmap_get(rl->by_peer, peer);
        if (e)
                return e;
        if (rl->n == rl->max_peers || !(e = entry_new(peer, now)))
                return rl->others;
        if (idmap_put(rl->by_peer, e->peer, e) < 0) {
                free(e);
                return rl->others;
        }
        rl->v[rl->n++] = e;
        return e;
}

bool ratelimit_allow(ratelimit_t *rl, const char *peer, int64_t now, uint64_t *held)
{
        entry_t *e = lookup(rl, peer ? peer : "", now);
        if (held)
                *held = 0;
        if (now - e->start >= rl->interval) {
                /* A new interval; what was held back in the last one goes with this line. */
                e->start = now;
                e->lines = 0;
        }
        if (e->lines < rl->burst) {
                e->lines++;
                if (held)
                        *held = e->suppressed;
                e->suppressed = 0;
                return true;
        }
        e->suppressed++;
        rl->total++;
        return false;
}

void ratelimit_flush(ratelimit_t *rl, int64_t now,
                     void (*report)(const char *peer, uint64_t n, void *userdata), void *userdata)
{
        for (size_t i = 0; i <= rl->n; i++) {
                entry_t *e = i < rl->n ? rl->v[i] : rl->others;
                if (now - e->start < rl->interval)
                        continue;
                if (e->suppressed) {
                        if (report)
                                report(e->peer, e->suppressed, userdata);
                        e->suppressed = 0;
                        e->start = now;
                        e->lines = 0;
                        continue;
                }
                if (i == rl->n)
                        continue; /* the shared entry stays */
                /* Quiet for a whole interval: forgotten, its slot goes to the last entry. */
                idmap_remove(rl->by_peer, e->peer);
                free(e);
                rl->v[i] = rl->v[--rl->n];
                rl->v[rl->n] = NULL;
                i--;
        }
}

const char *ratelimit_held_note(uint64_t held, char *buf, size_t len)
{
        if (held)
                snprintf(buf, len, " (%llu lines like it suppressed before this one)",
                         (unsigned long long)held);
        else if (len)
                buf[0] = 0;
        return buf;
}

uint64_t ratelimit_suppressed_total(const ratelimit_t *rl)
{
        return rl->total;
}

size_t ratelimit_peers(const ratelimit_t *rl)
{
        return rl->n;
}
