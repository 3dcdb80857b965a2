# linux/linux.mk: the Linux side of ronx, included by the top-level
# Makefile (paths relative to the repository root). Needs root and
# Debian's package mirror; downloads and built kernels are cached in
# ~/.cache/ronx/linux (override with RONX_LINUX_CACHE).

.PHONY: linux-check linux-fetch linux-small-kernels linux-clean

# Everything: fetch, build the module and the small kernels of every
# series (linux/patches/VERSION/), boot all scenarios, write
# build/results/linux.ktap and build/results/linux-vs-ronx.md (make docs
# copies it into docs/).
# ronx's own readings are refreshed first when the top Makefile has them.
# LINUX_PART=boots: only the boots (no readings needed); LINUX_PART=report:
# the readings and the report from boots already made (linux/check.sh).
linux-check:
	@if [ "$(LINUX_PART)" = boots ]; then \
		:; \
	elif $(MAKE) -n ronx-checks >/dev/null 2>&1; then \
		echo "[linux] refreshing ronx's readings (make ronx-checks)"; \
		$(MAKE) ronx-checks || echo "[linux] make ronx-checks failed; missing ronx rows will say 'not measured'"; \
	else \
		echo "[linux] no ronx-checks target here; missing ronx rows will say 'not measured'"; \
	fi
	linux/check.sh

linux-fetch:
	linux/fetch.sh

# The small kernels of every series in linux/patches/ (or of one:
# make linux-small-kernels LINUX_SERIES=6.12).
linux-small-kernels:
	linux/small-kernel.sh $(LINUX_SERIES)

# Only this side's outputs; the download cache stays.
linux-clean:
	rm -rf build/linux build/results/linux.ktap build/results/linux-checks.json \
		build/results/linux-vs-ronx.md
