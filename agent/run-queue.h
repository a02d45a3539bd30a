/* An agent's run messages until the coordinator acknowledges them: numbered 1, 2, ..., kept in
 * memory up to a bound and written through to the run's directory, read back in order to resend
 * them, and found again by an agent that restarts. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct rqueue rqueue_t;

/* Messages kept in memory (beyond this only their place in the file is). */
#define RQUEUE_MEM_BYTES (4u << 20)

#define RQUEUE_FILE "queue"

/* A queue in dir (created; a queue file there is replaced). 0 or -errno. */
int rqueue_create(const char *dir, size_t mem_bytes, rqueue_t **ret);
/* The queue an earlier life of the agent left in dir: messages after acked (as its state file
 * said), read from the file; a torn last record (a crash mid-write) ends it. A file that starts
 * past acked + 1 was started over when everything before was acknowledged (a state file older
 * than its queue, after a power cut): it is taken from there. 0 or -errno. */
int rqueue_load(const char *dir, uint64_t acked, size_t mem_bytes, rqueue_t **ret);
/* Closes the queue and keeps its file. NULL-safe. */
void rqueue_close(rqueue_t **qp);
/* Closes the queue and removes its file (everything was acknowledged, or nobody wants it). */
void rqueue_remove(rqueue_t **qp);

/* The number the next message gets. */
uint64_t rqueue_next(const rqueue_t *q);
/* Keeps message number rqueue_next(q), len bytes (copied), and writes it to the file. 0 or
 * -errno (the message is kept in memory even when the file cannot be written). */
int rqueue_push(rqueue_t *q, const void *buf, size_t len);
/* Everything up to upto is acknowledged: forgotten. Returns how many were. */
size_t rqueue_ack(rqueue_t *q, uint64_t upto);
/* The coordinator has everything up to upto, more than this queue ever made (what an earlier
 * life of the agent made after its files last reached the disk, lost with its host): everything
 * here is acknowledged and the numbering goes on after upto, so that no number the coordinator
 * holds is given to another message. Nothing happens when upto <= rqueue_made(q). */
void rqueue_skip(rqueue_t *q, uint64_t upto);
/* Calls cb for every message numbered above after, in order (from memory, or from the file for
 * those beyond the memory bound). Stops at the first cb that is not 0: returns it if < 0,
 * else 0 (a cb > 0 asks for no more). */
int rqueue_each(rqueue_t *q, uint64_t after,
                int (*cb)(void *user, uint64_t seq, const void *buf, size_t len), void *user);

uint64_t rqueue_made(const rqueue_t *q);  /* messages made so far (the last number) */
uint64_t rqueue_acked(const rqueue_t *q); /* the last number acknowledged */
size_t rqueue_pending(const rqueue_t *q); /* made - acked */
size_t rqueue_mem_bytes(const rqueue_t *q);
