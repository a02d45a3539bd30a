/* This agent as the NFS server of a run: it configures the server at Prepare and puts it back at
 * Stop, each in a thread of its own, so that the agent keeps answering the coordinator (its
 * heartbeats) while a server restarts. */
#pragma once

#include "session.h"

/* Starts configuring for Prepare p (role server); Prepared or an Error follows from
 * serve_on_event(). */
void serve_start(agent_t *ag, const Iofleet__Prepare *p);
/* The id of the run served, or "". */
const char *serve_run_id(const agent_t *ag);
/* The fd to poll while serving (readable when a thread is done), or -1. */
int serve_fd(const agent_t *ag);
/* Handles a finished thread: sends Prepared (or the error), or Finished after a restore. */
void serve_on_event(agent_t *ag);
/* Stop from the coordinator: the server is put back, then Finished reports it. */
void serve_stop(agent_t *ag, const char *why);
/* No coordinator to report to (lost, or the agent stops): waits for a thread, puts everything
 * back now, frees the context. NULL-safe on ag->serve. */
void serve_abort(agent_t *ag);
