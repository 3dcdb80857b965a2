# Shared settings for the linux/ scripts (sourced, not run).
# All downloads and unpacked trees live in a cache outside the repository.
CACHE=${RONX_LINUX_CACHE:-$HOME/.cache/ronx/linux}
LINUX_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$LINUX_DIR/.." && pwd)
RESULTS=$REPO/build/results
WORK=$REPO/build/linux
mkdir -p "$CACHE" "$RESULTS" "$WORK"

# The kernel versions with a patch series (linux/patches/VERSION/),
# oldest first.
series() { (cd "$LINUX_DIR/patches" && ls -d */ | tr -d / | sort -V); }
# Shell-variable suffix of a version: 6.12 -> 6_12.
vvar() { printf '%s' "${1//./_}"; }

say() { printf '[linux] %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

# Run a long command with its output in a log, printing a progress line
# every 20 s so CI shows life; on failure show the end of the log.
run_logged() {
	local log=$1 what=$2; shift 2
	local start=$SECONDS pid rc
	"$@" >"$log" 2>&1 &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		sleep 20 &
		wait $! || true
		kill -0 "$pid" 2>/dev/null || break
		say "$what: $((SECONDS - start))s, $(tail -n 1 "$log" | cut -c1-100)"
	done
	rc=0; wait "$pid" || rc=$?
	if [ "$rc" -ne 0 ]; then
		tail -n 40 "$log" >&2
		die "$what failed (exit $rc), log: $log"
	fi
	say "$what: done in $((SECONDS - start))s"
}
