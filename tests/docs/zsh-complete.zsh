# Completes each line given after the completion directory in an interactive zsh (driven through
# zpty) and prints what zsh's completion system offered for it: "== LINE", then one word per
# line, sorted. The candidates are captured from compadd, so descriptions and menus do not matter.
zmodload zsh/zpty || exit 77
dir=$1
shift
zpty z zsh -f -i || exit 77
zpty -w z "PS1='R''EADY>'; fpath=(${(q)dir} \$fpath); autoload -Uz compinit; compinit -u -D"
# zle drops what is typed before its prompt is up: wait for the prompt before each line.
zpty -r -m z out '*READY>*' || exit 1
zpty -w z 'compadd() { if [[ ${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then builtin compadd "$@"; return; fi; local -a __h; builtin compadd -A __h "$@"; local r=$?; (( $#__h )) && print -rl -- "" "HIT:"${^__h}; builtin compadd "$@"; return r; }; print D""ONE'
zpty -r -m z out '*DONE*' || exit 1
for line in "$@"; do
  zpty -r -m z out '*READY>*' || exit 1
  # The markers are typed as D""ONE and R''EADY so that only their output, not their echo,
  # matches.
  zpty -w -n z "$line"$'\t\C-u''print D""ONE'$'\n'
  zpty -r -m z out '*DONE*' || exit 1
  print -r -- "== $line"
  hits=(${${(M)${(f)out}:#HIT:*}#HIT:})
  print -rl -- ${(ou)${hits//$'\r'/}}
done
zpty -d z
