/* Per-peer rate limits for log lines: a few lines per peer and interval, then one count of the
 * lines held back, so a flood of bad input cannot flood the log. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct ratelimit ratelimit_t;

/* At most burst lines per peer every interval_ns; at most max_peers peers are told apart, the
 * others share one entry (named RATELIMIT_OTHERS). 0 or -errno; *ret untouched on error. */
int ratelimit_new(int64_t interval_ns, unsigned burst, size_t max_peers, ratelimit_t **ret);
void ratelimit_free(ratelimit_t **rp);

#define RATELIMIT_OTHERS "other peers"

/* True when a line about peer may be logged at now. held (may be NULL) gets the number of
 * lines about peer suppressed since its last allowed line that no summary has reported yet;
 * the caller mentions them in the line it logs. False when the line is to be suppressed: it
 * is counted. */
bool ratelimit_allow(ratelimit_t *rl, const char *peer, int64_t now, uint64_t *held);

/* Calls report(peer, n) for each peer whose interval has ended with n > 0 lines suppressed, then
 * starts its next interval; forgets peers quiet for a whole interval. Call it every second or so.
 */
void ratelimit_flush(ratelimit_t *rl, int64_t now,
                     void (*report)(const char *peer, uint64_t n, void *userdata), void *userdata);

/* " (N lines like it suppressed before this one)" when held > 0, else "": for the end of the line
 * an allowed ratelimit_allow() call logs. Returns buf. */
const char *ratelimit_held_note(uint64_t held, char *buf, size_t len);

/* Total of suppressed lines so far, and peers tracked now (for tests and status). */
uint64_t ratelimit_suppressed_total(const ratelimit_t *rl);
size_t ratelimit_peers(const ratelimit_t *rl);
