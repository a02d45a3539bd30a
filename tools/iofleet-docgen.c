/* iofleet-docgen: the build's generator of man page sections and shell completions from the
 * tables the programs themselves use (CLI commands and options, job options, config keys, NFS
 * server keys), so that documentation and completion never drift from the code.
 *
 *   iofleet-docgen expand TEMPLATE.scd OUT.scd   lines "@generate KIND" replaced
 *   iofleet-docgen bash OUT                      bash completion for iofleet
 *   iofleet-docgen zsh OUT                       zsh completion for iofleet
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent-config.h"
#include "cli-options.h"
#include "cli.h"
#include "clock.h"
#include "config.h"
#include "coord-config.h"
#include "nfs-settings.h"
#include "options.h"
#include "util.h"

/* --- scdoc ------------------------------------------------------------------------------ */

/* Text with scdoc's markup characters escaped, so that names like allow_paths stay literal. */
static void scd_text(FILE *f, const char *s)
{
        for (; *s; s++) {
                if (*s == '*' || *s == '_' || *s == '\\')
                        fputc('\\', f);
                fputc(*s, f);
        }
}

/* An indented paragraph: help texts whose lines were broken for a terminal join into one. */
static void scd_para(FILE *f, const char *s)
{
        fputc('\t', f);
        for (; *s; s++) {
                if (*s == '\n') {
                        fputc(' ', f);
                        continue;
                }
                if (*s == '*' || *s == '_' || *s == '\\')
                        fputc('\\', f);
                fputc(*s, f);
        }
        fputc('\n', f);
}

/* A preformatted block (a command's description keeps its layout). */
static void scd_block(FILE *f, const char *s)
{
        fprintf(f, "```\n%s\n```\n\n", s);
}

static void gen_cli_commands(FILE *f)
{
        for (size_t i = 0; i < cli_n_commands; i++) {
                const cli_command_t *c = &cli_commands[i];
                fprintf(f, "## iofleet %s\n\n", c->name);
                fprintf(f, "*iofleet %s* ", c->name);
                scd_text(f, c->synopsis);
                fprintf(f, "\n\n");
                scd_block(f, c->description);
                for (const cli_option_t *o = c->options; o->name; o++) {
                        fprintf(f, "*--");
                        scd_text(f, o->name);
                        fputc('*', f);
                        if (o->value == CLI_CHOICE || o->value == CLI_CHOICES) {
                                fputc('=', f);
                                for (const char *p = o->choices; *p; p++)
                                        *p == ',' ? fputc('|', f) : fputc(*p, f);
                        } else if (o->value != CLI_FLAG) {
                                fprintf(f, "=_");
                                scd_text(f, o->metavar);
                                fputc('_', f);
                        }
                        fprintf(f, "\n");
                        scd_para(f, o->help);
                        fprintf(f, "\n");
                }
        }
}

static void gen_job_options(FILE *f)
{
        job_option_doc_t d;
        for (size_t i = 0; job_option_doc(i, &d); i++) {
                fputc('*', f);
                scd_text(f, d.name);
                fputc('*', f);
                if (!d.flag) {
                        fprintf(f, "=_");
                        scd_text(f, d.type);
                        fputc('_', f);
                }
                for (size_t a = 0; a < 2 && d.aliases[a]; a++) {
                        fprintf(f, "%s", a ? ", *" : " (alias *");
                        scd_text(f, d.aliases[a]);
                        fputc('*', f);
                }
                fprintf(f, "%s\n\t", d.aliases[0] ? ")" : "");
                scd_text(f, d.help);
                fprintf(f, ". Values: ");
                scd_text(f, d.range);
                if (d.def) {
                        fprintf(f, "; default ");
                        scd_text(f, d.def);
                }
                fprintf(f, ".\n\n");
        }
}

/* A duration as a user writes it: "10ms", "1s", "600s". */
static const char *duration(uint64_t ns, char *buf, size_t len)
{
        if (ns % NSEC_PER_SEC == 0)
                snprintf(buf, len, "%" PRIu64 "s", ns / (uint64_t)NSEC_PER_SEC);
        else if (ns % NSEC_PER_MSEC == 0)
                snprintf(buf, len, "%" PRIu64 "ms", ns / (uint64_t)NSEC_PER_MSEC);
        else
                clock_format_duration((int64_t)ns, buf, len);
        return buf;
}

/* One configuration table: each key with its type, help, range or choices and default, all read
 * from the table itself (cfg_item_t); test hooks are left out of the pages. */
static void gen_config(FILE *f, const cfg_schema_t *s, const char *dash)
{
        static const char *const types[] = {
            [CFG_STRING] = "string", [CFG_BOOL] = "bool",     [CFG_DURATION] = "duration",
            [CFG_UINT] = "number",   [CFG_LIST] = "list",     [CFG_CHOICE] = "choice",
            [CFG_SDURATION] = "duration",
        };
        for (size_t i = 0; i < s->n_items; i++) {
                const cfg_item_t *it = &s->items[i];
                if (it->flags & CFG_TEST_HOOK)
                        continue;
                fprintf(f, "*%s", dash);
                scd_text(f, it->name);
                fprintf(f, "*=_%s_\n\t", types[it->type]);
                scd_text(f, it->help);
                if (it->choices && (it->type == CFG_LIST || it->type == CFG_CHOICE)) {
                        fprintf(f, "; %s ", it->type == CFG_LIST ? "any of" : "one of");
                        scd_text(f, it->choices);
                }
                if ((it->type == CFG_UINT) && it->max)
                        fprintf(f, "; %" PRIu64 "..%" PRIu64, it->min, it->max);
                if (it->type == CFG_DURATION && it->max) {
                        char lo[32], hi[32];
                        fprintf(f, "; %s..%s", duration(it->min, lo, sizeof(lo)),
                                duration(it->max, hi, sizeof(hi)));
                }
                const char *def = it->def ? it->def : it->def_doc;
                if (def && *def) {
                        fprintf(f, " (default ");
                        scd_text(f, def);
                        fputc(')', f);
                }
                fprintf(f, ".\n\n");
        }
}

static void gen_nfs_server_keys(FILE *f)
{
        size_t n;
        const nfs_setting_t *t = nfs_settings_table(&n);
        for (size_t i = 0; i < n; i++) {
                fputc('*', f);
                scd_text(f, t[i].key);
                fprintf(f, "* (%s%s%s)\n\t", t[i].backends & NFS_BACKEND_KERNEL ? "kernel" : "",
                        t[i].backends == (NFS_BACKEND_KERNEL | NFS_BACKEND_GANESHA) ? ", " : "",
                        t[i].backends & NFS_BACKEND_GANESHA ? "ganesha" : "");
                scd_text(f, t[i].help);
                fprintf(f, ". Values: ");
                scd_text(f, t[i].range);
                fprintf(f, ".\n\n");
        }
}

static int generate(FILE *f, const char *kind)
{
        if (streq(kind, "cli-commands"))
                gen_cli_commands(f);
        else if (streq(kind, "job-options"))
                gen_job_options(f);
        else if (streq(kind, "nfs-server-keys"))
                gen_nfs_server_keys(f);
        else if (streq(kind, "agent-config") || streq(kind, "agent-arguments"))
                gen_config(f, &agent_config_schema, streq(kind, "agent-config") ? "" : "--");
        else if (streq(kind, "coordinator-config") || streq(kind, "coordinator-arguments"))
                gen_config(f, &coord_config_schema,
                           streq(kind, "coordinator-config") ? "" : "--");
        else if (streq(kind, "cli-config"))
                gen_config(f, &cli_config_schema, "");
        else
                return -ENOENT;
        return 0;
}

static int expand(const char *in, const char *out)
{
        FILE *fi = fopen(in, "re"), *fo = fi ? fopen(out, "we") : NULL;
        char line[4096];
        int lineno = 0, r = 0;

        if (!fi || !fo) {
                fprintf(stderr, "iofleet-docgen: %s: %s\n", fi ? out : in, strerror(errno));
                if (fi)
                        fclose(fi);
                return 1;
        }
        while (r == 0 && fgets(line, sizeof(line), fi)) {
                lineno++;
                if (strncmp(line, "@generate ", 10) != 0) {
                        fputs(line, fo);
                        continue;
                }
                line[strcspn(line, "\n")] = 0;
                if ((r = generate(fo, line + 10)) < 0)
                        fprintf(stderr, "iofleet-docgen: %s:%d: cannot generate '%s': %s\n", in,
                                lineno, line + 10, strerror(-r));
        }
        fclose(fi);
        if (fclose(fo) != 0 && r == 0) {
                fprintf(stderr, "iofleet-docgen: %s: %s\n", out, strerror(errno));
                r = -EIO;
        }
        return r < 0 ? 1 : 0;
}

/* --- completions ------------------------------------------------------------------------ */

static const char *kind_word(cli_value_t v)
{
        switch (v) {
        case CLI_FLAG:
                return "flag";
        case CLI_FILE:
                return "file";
        case CLI_DIR:
                return "dir";
        case CLI_COMMAND:
                return "command";
        case CLI_CHOICE:
        case CLI_CHOICES:
                return "choice";
        default:
                return "text";
        }
}

static void bash_choices(FILE *f, const char *choices)
{
        for (const char *p = choices; *p; p++)
                fputc(*p == ',' ? ' ' : *p, f);
}

static void gen_bash(FILE *f)
{
        job_option_doc_t d;

        fprintf(f,
                "# bash completion for iofleet(1): commands, options, option values and files.\n"
                "# Generated from iofleet's own option tables by iofleet-docgen; do not edit.\n\n"
                "_iofleet_commands='");
        for (size_t i = 0; i < cli_n_commands; i++)
                fprintf(f, "%s%s", i ? " " : "", cli_commands[i].name);
        fprintf(f, "'\n\n# The options of a command; those that take a value end with '='.\n"
                   "_iofleet_options() {\n    case $1 in\n");
        for (size_t i = 0; i < cli_n_commands; i++) {
                const cli_command_t *c = &cli_commands[i];
                fprintf(f, "    %s) echo '-h --help", c->name);
                for (const cli_option_t *o = c->options; o->name; o++)
                        fprintf(f, " --%s%s", o->name, o->value == CLI_FLAG ? "" : "=");
                fprintf(f, "' ;;\n");
        }
        fprintf(f, "    esac\n}\n\n# The fio job options iofleet run takes (--KEY=VALUE; "
                   "booleans alone).\n_iofleet_job_options='");
        for (size_t i = 0; job_option_doc(i, &d); i++) {
                fprintf(f, "%s--%s%s", i ? " " : "", d.name, d.flag ? "" : "=");
                for (size_t a = 0; a < 2 && d.aliases[a]; a++)
                        fprintf(f, " --%s%s", d.aliases[a], d.flag ? "" : "=");
        }
        fprintf(f, "'\n\n# What an option's value is: flag, file, dir, command, text or "
                   "'choice WORD...'.\n_iofleet_kind() {\n    case $1:$2 in\n");
        for (size_t i = 0; i < cli_n_commands; i++) {
                const cli_command_t *c = &cli_commands[i];
                for (const cli_option_t *o = c->options; o->name; o++) {
                        fprintf(f, "    %s:--%s|%s:-%s) echo '%s", c->name, o->name, c->name,
                                o->name, kind_word(o->value));
                        if (o->value == CLI_CHOICE || o->value == CLI_CHOICES) {
                                fputc(' ', f);
                                bash_choices(f, o->choices);
                        }
                        fprintf(f, "' ;;\n");
                }
        }
        for (size_t i = 0; job_option_doc(i, &d); i++) {
                const char *names[3] = {d.name, d.aliases[0], d.aliases[1]};
                fprintf(f, "    ");
                for (size_t a = 0; a < 3 && names[a]; a++)
                        fprintf(f, "%srun:--%s|run:-%s", a ? "|" : "", names[a], names[a]);
                if (d.choices) {
                        fprintf(f, ") echo 'choice");
                        for (size_t k = 0; d.choices[k]; k++)
                                fprintf(f, " %s", d.choices[k]);
                        fprintf(f, "' ;;\n");
                } else if (d.flag)
                        fprintf(f, ") echo 'choice 0 1' ;;\n");
                else if (d.path)
                        fprintf(f, ") echo '%s' ;;\n", streq(d.name, "directory") ? "dir" : "file");
                else
                        fprintf(f, ") echo 'text' ;;\n");
        }
        fprintf(f, "    esac\n}\n\n# What a command's operands are.\n_iofleet_operands() {\n"
                   "    case $1 in\n");
        for (size_t i = 0; i < cli_n_commands; i++)
                fprintf(f, "    %s) echo '%s' ;;\n", cli_commands[i].name,
                        cli_commands[i].operands == CLI_FLAG ? "none"
                                                             : kind_word(cli_commands[i].operands));
        fprintf(f, "    esac\n}\n\n");
        fputs(
            "# Fills COMPREPLY with the values of kind $1 that start with $2, each after prefix "
            "$3.\n"
            "_iofleet_values() {\n"
            "    local IFS=$'\\n' kind=$1 cur=$2 pre=$3\n"
            "    case $kind in\n"
            "    file) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- \"$cur\")) ;;\n"
            "    dir) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -d -- \"$cur\")) ;;\n"
            "    command) COMPREPLY=($(compgen -W \"${_iofleet_commands// /$'\\n'}\" -- \"$cur\")) "
            ";;\n"
            "    choice\\ *) local w=${kind#choice }\n"
            "        COMPREPLY=($(compgen -W \"${w// /$'\\n'}\" -- \"$cur\")) ;;\n"
            "    *) COMPREPLY=() ;;\n"
            "    esac\n"
            "    [[ -n $pre ]] && COMPREPLY=(\"${COMPREPLY[@]/#/$pre}\")\n"
            "    return 0\n"
            "}\n\n"
            "_iofleet() {\n"
            "    local cur=${COMP_WORDS[COMP_CWORD]} cmd='' opt='' pre='' kind i w ended=''\n"
            "    local IFS=$' \\t\\n'\n"
            "    COMPREPLY=()\n"
            "    for ((i = 1; i < COMP_CWORD; i++)); do\n"
            "        w=${COMP_WORDS[i]}\n"
            "        if [[ -z $cmd ]]; then\n"
            "            [[ $w == -* ]] || cmd=$w\n"
            "        elif [[ $w == -- ]]; then\n"
            "            ended=1\n"
            "        fi\n"
            "    done\n"
            "    if [[ -z $cmd ]]; then\n"
            "        COMPREPLY=($(compgen -W \"$_iofleet_commands -h --help --version\" -- "
            "\"$cur\"))\n"
            "        return 0\n"
            "    fi\n"
            "    if [[ -z $ended ]]; then\n"
            "        # --opt=VALUE: with '=' in COMP_WORDBREAKS (the default) bash makes three "
            "words.\n"
            "        if [[ $cur == = && $COMP_CWORD -ge 2 ]]; then\n"
            "            opt=${COMP_WORDS[COMP_CWORD-1]} cur=''\n"
            "        elif [[ $COMP_CWORD -ge 3 && ${COMP_WORDS[COMP_CWORD-1]} == = ]]; then\n"
            "            opt=${COMP_WORDS[COMP_CWORD-2]}\n"
            "        elif [[ $cur == -*=* ]]; then\n"
            "            opt=${cur%%=*} pre=${cur%%=*}= cur=${cur#*=}\n"
            "        fi\n"
            "        if [[ -n $opt ]]; then\n"
            "            _iofleet_values \"$(_iofleet_kind \"$cmd\" \"$opt\")\" \"$cur\" \"$pre\"\n"
            "            return 0\n"
            "        fi\n"
            "        # --opt VALUE: iofleet's own options only (job options take '=').\n"
            "        w=${COMP_WORDS[COMP_CWORD-1]}\n"
            "        if [[ $w == -* && $COMP_CWORD -ge 3 ]]; then\n"
            "            kind=$(_iofleet_kind \"$cmd\" \"$w\")\n"
            "            if [[ -n $kind && $kind != flag && $(_iofleet_options \"$cmd\") == "
            "*\"${w#-}=\"* ]]; then\n"
            "                _iofleet_values \"$kind\" \"$cur\" ''\n"
            "                return 0\n"
            "            fi\n"
            "        fi\n"
            "        if [[ $cur == -* ]]; then\n"
            "            w=$(_iofleet_options \"$cmd\")\n"
            "            [[ $cmd == run ]] && w+=\" $_iofleet_job_options\"\n"
            "            COMPREPLY=($(compgen -W \"$w\" -- \"$cur\"))\n"
            "            [[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} == *= ]] && "
            "compopt -o nospace 2>/dev/null\n"
            "            return 0\n"
            "        fi\n"
            "    fi\n"
            "    _iofleet_values \"$(_iofleet_operands \"$cmd\")\" \"$cur\" ''\n"
            "    return 0\n"
            "}\n"
            "complete -F _iofleet iofleet\n",
            f);
}

/* zsh's _arguments specs quote the description in [...] and the message after ':'. */
static void zsh_text(FILE *f, const char *s, size_t max)
{
        size_t n = 0;
        for (; *s && n < max; s++, n++) {
                char c = *s == '\n' ? ' ' : *s;
                if (c == '\'')
                        fputs("'\\''", f);
                else if (c == '[' || c == ']' || c == ':' || c == '\\')
                        fprintf(f, "\\%c", c);
                else
                        fputc(c, f);
        }
}

static void zsh_action(FILE *f, cli_value_t v, const char *choices)
{
        switch (v) {
        case CLI_FILE:
                fputs("_files", f);
                break;
        case CLI_DIR:
                fputs("_files -/", f);
                break;
        case CLI_COMMAND:
                fputs("_iofleet_commands", f);
                break;
        case CLI_CHOICE:
        case CLI_CHOICES:
                fputc('(', f);
                for (const char *p = choices; *p; p++)
                        fputc(*p == ',' ? ' ' : *p, f);
                fputc(')', f);
                break;
        default:
                fputs(" ", f);
        }
}

static void gen_zsh(FILE *f)
{
        job_option_doc_t d;

        fprintf(f,
                "#compdef iofleet\n"
                "# zsh completion for iofleet(1): commands, options, option values and files.\n"
                "# Generated from iofleet's own option tables by iofleet-docgen; do not edit.\n\n"
                "_iofleet_commands() {\n    local -a cmds\n    cmds=(\n");
        for (size_t i = 0; i < cli_n_commands; i++) {
                fprintf(f, "        '%s:", cli_commands[i].name);
                zsh_text(f, cli_commands[i].summary, 200);
                fprintf(f, "'\n");
        }
        fprintf(f, "    )\n    _describe -t commands 'iofleet command' cmds\n}\n\n");
        for (size_t i = 0; i < cli_n_commands; i++) {
                const cli_command_t *c = &cli_commands[i];
                fprintf(f, "_iofleet_%s() {\n    _arguments -S \\\n", c->name);
                fprintf(f, "        '(- *)'{-h,--help}'[say what iofleet %s does]'", c->name);
                for (const cli_option_t *o = c->options; o->name; o++) {
                        const char *nl = strchr(o->help, '\n');
                        fprintf(f, " \\\n        '--%s%s[", o->name,
                                o->value == CLI_FLAG ? "" : "=");
                        zsh_text(f, o->help, nl ? (size_t)(nl - o->help) : 200);
                        fputc(']', f);
                        if (o->value != CLI_FLAG) {
                                fputc(':', f);
                                zsh_text(f, o->metavar, 40);
                                fputc(':', f);
                                zsh_action(f, o->value, o->choices);
                        }
                        fprintf(f, "'");
                }
                if (c->job_options)
                        for (size_t k = 0; job_option_doc(k, &d); k++) {
                                const char *names[3] = {d.name, d.aliases[0], d.aliases[1]};
                                for (size_t a = 0; a < 3 && names[a]; a++) {
                                        fprintf(f, " \\\n        '--%s%s[", names[a],
                                                d.flag ? "" : "=-");
                                        zsh_text(f, d.help, 70);
                                        fputc(']', f);
                                        if (!d.flag) {
                                                fprintf(f, ":%s:", d.type);
                                                if (d.choices) {
                                                        fputc('(', f);
                                                        for (size_t q = 0; d.choices[q]; q++)
                                                                fprintf(f, "%s%s", q ? " " : "",
                                                                        d.choices[q]);
                                                        fputc(')', f);
                                                } else if (d.path)
                                                        fputs(streq(d.name, "directory")
                                                                  ? "_files -/"
                                                                  : "_files",
                                                              f);
                                                else
                                                        fputc(' ', f);
                                        }
                                        fprintf(f, "'");
                                }
                        }
                if (c->operands != CLI_FLAG) {
                        fprintf(f, " \\\n        '*:");
                        zsh_text(f, c->operand_name, 40);
                        fputc(':', f);
                        zsh_action(f, c->operands, NULL);
                        fprintf(f, "'");
                }
                fprintf(f, "\n}\n\n");
        }
        fprintf(f, "_iofleet() {\n"
                   "    local curcontext=$curcontext state line\n"
                   "    typeset -A opt_args\n"
                   "    _arguments -C \\\n"
                   "        '(- *)'{-h,--help}'[list the commands]' \\\n"
                   "        '(- *)--version[print the version]' \\\n"
                   "        '1:command:_iofleet_commands' \\\n"
                   "        '*::argument:->argument'\n"
                   "    case $state in\n"
                   "    argument)\n"
                   "        curcontext=${curcontext%%:*:*}:iofleet-$words[1]:\n"
                   "        case $words[1] in\n");
        for (size_t i = 0; i < cli_n_commands; i++)
                fprintf(f, "        %s) _iofleet_%s ;;\n", cli_commands[i].name,
                        cli_commands[i].name);
        fprintf(f, "        esac ;;\n    esac\n}\n\n_iofleet \"$@\"\n");
}

static int write_with(const char *out, void (*gen)(FILE *))
{
        FILE *f = fopen(out, "we");
        if (!f) {
                fprintf(stderr, "iofleet-docgen: %s: %s\n", out, strerror(errno));
                return 1;
        }
        gen(f);
        if (fclose(f) != 0) {
                fprintf(stderr, "iofleet-docgen: %s: %s\n", out, strerror(errno));
                return 1;
        }
        return 0;
}

int main(int argc, char **argv)
{
        if (argc == 4 && streq(argv[1], "expand"))
                return expand(argv[2], argv[3]);
        if (argc == 3 && streq(argv[1], "bash"))
                return write_with(argv[2], gen_bash);
        if (argc == 3 && streq(argv[1], "zsh"))
                return write_with(argv[2], gen_zsh);
        fprintf(stderr, "Usage: iofleet-docgen expand TEMPLATE.scd OUT.scd | bash OUT | zsh OUT\n");
        return 2;
}
