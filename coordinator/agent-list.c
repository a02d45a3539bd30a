/* Agents as the CLI sees them: AgentList and RunAccepted replies, and control errors. */
#include "agent-list.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "util.h"

/* AgentInfo for the CLI; points into a (no copies) except for the label keys, freed below. */
static void agent_info(const coord_agent_t *a, const char *run, Iofleet__AgentInfo *info,
                       Iofleet__Label *labels, Iofleet__Label **lp)
{
        iofleet__agent_info__init(info);
        info->agent_id = (char *)a->id;
        info->name = (char *)a->name;
        info->hostname = (char *)a->hostname;
        info->roles = a->roles.v;
        info->n_roles = a->roles.n;
        info->version = (char *)a->version;
        info->offset_ns = a->offset_ns;
        info->rtt_ns = a->have_offset ? a->rtt_ns : 0;
        info->clock_offset_known = a->have_offset && a->have_wall_offset;
        info->clock_offset_ns = info->clock_offset_known ? a->wall_offset_ns : 0;
        info->clock_error_ns = info->clock_offset_known ? a->rtt_ns / 2 + (a->rtt_ns & 1) : 0;
        info->state = (char *)agent_state_to_string(a->state);
        info->run_id = (char *)(run ? run : "");
        /* The registry keeps monotonic times (a clock step must not mark agents lost);
         * people read wall-clock times. */
        info->joined_ns = a->joined_ns + (clock_real_ns() - clock_mono_ns());
        info->last_seen_ns = a->last_seen_ns + (clock_real_ns() - clock_mono_ns());
        for (size_t i = 0; i < a->labels.n; i++) {
                char *kv = a->labels.v[i], *eq = strchr(kv, '=');
                iofleet__label__init(&labels[i]);
                /* The label is split in place only in the copy we hand out. */
                labels[i].key = strndup(kv, eq ? (size_t)(eq - kv) : strlen(kv));
                labels[i].value = eq ? eq + 1 : "";
                lp[i] = &labels[i];
        }
        info->labels = lp;
        info->n_labels = a->labels.n;
}

static void agent_info_done(Iofleet__AgentInfo *info)
{
        for (size_t i = 0; i < info->n_labels; i++)
                free(info->labels[i]->key);
}

void error_push(outbox_t *ob, const char *peer, uint64_t *seq, Iofleet__ErrorCode code,
                        const char *run_id, const char *msg)
{
        envelope_t e = IOFLEET__ENVELOPE__INIT;
        Iofleet__Error err = IOFLEET__ERROR__INIT;
        err.code = code;
        err.message = (char *)msg;
        err.run_id = (char *)(run_id ? run_id : "");
        e.seq = seq ? ++*seq : 0;
        e.body_case = IOFLEET__ENVELOPE__BODY_ERROR;
        e.error = &err;
        outbox_push(ob, peer, &e);
}

void agent_list_push(outbox_t *ob, const char *peer, uint64_t *seq, coord_agent_t **agents, size_t n,
                     const char *accepted_run, const char *(*run_of)(void *user, const char *id),
                     void *user)
{
        envelope_t e = IOFLEET__ENVELOPE__INIT;
        Iofleet__AgentList list = IOFLEET__AGENT_LIST__INIT;
        Iofleet__RunAccepted acc = IOFLEET__RUN_ACCEPTED__INIT;
        Iofleet__AgentInfo *infos = calloc(n ? n : 1, sizeof(*infos));
        Iofleet__AgentInfo **ip = calloc(n ? n : 1, sizeof(*ip));
        Iofleet__Label *labels = NULL;
        Iofleet__Label **lp = NULL;
        size_t nl = 0;

        for (size_t i = 0; i < n; i++)
                nl += agents[i]->labels.n;
        labels = calloc(nl ? nl : 1, sizeof(*labels));
        lp = calloc(nl ? nl : 1, sizeof(*lp));
        if (!infos || !ip || !labels || !lp) {
                error_push(ob, peer, seq, IOFLEET__ERROR_CODE__ERROR_INTERNAL, NULL,
                                   "out of memory");
                goto done;
        }
        nl = 0;
        for (size_t i = 0; i < n; i++) {
                agent_info(agents[i], run_of ? run_of(user, agents[i]->id) : NULL, &infos[i],
                           labels + nl, lp + nl);
                nl += agents[i]->labels.n;
                ip[i] = &infos[i];
        }
        e.seq = seq ? ++*seq : 0;
        if (accepted_run) {
                acc.run_id = (char *)accepted_run;
                acc.agents = ip;
                acc.n_agents = n;
                e.body_case = IOFLEET__ENVELOPE__BODY_RUN_ACCEPTED;
                e.run_accepted = &acc;
        } else {
                list.agents = ip;
                list.n_agents = n;
                e.body_case = IOFLEET__ENVELOPE__BODY_AGENT_LIST;
                e.agent_list = &list;
        }
        outbox_push(ob, peer, &e);
        for (size_t i = 0; i < n; i++)
                agent_info_done(&infos[i]);
done:
        free(infos);
        free(ip);
        free(labels);
        free(lp);
}
