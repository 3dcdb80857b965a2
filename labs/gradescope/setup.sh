#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Gradescope runs this once, as root, while it builds the autograder's
# image (an Ubuntu base image): the packages that building and booting
# ronx need, then the teacher's tree built once, so that each submission
# rebuilds only its lab's files. The zip's files are in /autograder/source.
# (RONX_AUTOGRADER_ROOT replaces /autograder for the test of this zip only.)
set -euo pipefail
ROOT=${RONX_AUTOGRADER_ROOT:-/autograder}
cd "$ROOT/source/ronx"
bash tools/setup.sh grade
mkdir -p build
touch build/.setup-done
make --no-print-directory -j"$(nproc)" build/kernel.elf build/initrd.cpio
