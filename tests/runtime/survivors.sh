# survivors.sh: sourced by the runtime's shell tests (bash) to check that a
# test leaves no process behind (issue 34, finding 8).
#
# survivors DIR prints "PID COMMAND" for each process that is not this
# script's own (it, its ancestors, or a subshell of it: the same command line) whose
# command line mentions DIR or whose working directory is inside DIR: the
# daemons, keepers and tasks a test started on its own work dir.
# assert_no_survivors DIR gives them up to 5 s to exit; any left is
# reported, killed (they are the test's own) and makes it return 1.

survivors() {
  local dir=$1 self pid cmd cwd ancestors=" " up=$$
  self=$(tr '\0' ' ' </proc/$$/cmdline)
  # The script's ancestors (whatever runs it, e.g. `timeout 60 bash
  # multihost_test.sh ...`) may mention DIR too: they are not the test's.
  while [ "$up" -gt 1 ] 2>/dev/null; do
    ancestors+="$up "
    up=$(awk '{print $4}' "/proc/$up/stat" 2>/dev/null) || break
  done
  for p in /proc/[0-9]*; do
    pid=${p#/proc/}
    [[ $ancestors == *" $pid "* ]] && continue
    cmd=$(tr '\0' ' ' 2>/dev/null <"$p/cmdline") || continue
    [ -n "$cmd" ] || continue  # a zombie or a kernel thread
    [ "$cmd" = "$self" ] && continue
    cwd=$(readlink "$p/cwd" 2>/dev/null)
    case "$cmd" in
      *"$dir"*) echo "$pid $cmd"; continue ;;
    esac
    case "$cwd/" in
      "$dir"/*) echo "$pid $cmd" ;;
    esac
  done
}

assert_no_survivors() {
  local dir=$1 left
  for _ in $(seq 50); do
    left=$(survivors "$dir")
    [ -z "$left" ] && return 0
    sleep 0.1
  done
  echo "FAIL: processes of the test survived it:" >&2
  echo "$left" >&2
  while read -r pid _; do kill -KILL "$pid" 2>/dev/null; done <<<"$left"
  return 1
}
