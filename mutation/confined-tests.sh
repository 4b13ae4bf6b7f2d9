#!/bin/sh
# Runs a mutation group's tests with the host read-only: only Stryker's sandbox copy (the working
# directory) and a private /tmp are writable. A mutant of a module that writes or removes files
# (storage/beneath.ts once sent removeBeneath to "/" and deleted the checkout) can then harm
# nothing outside the sandbox. The network stays (PostgreSQL tests).
set -eu
exec bwrap --ro-bind / / --tmpfs /tmp --bind "$PWD" "$PWD" --dev /dev --proc /proc \
  --unshare-pid --die-with-parent --chdir "$PWD" \
  node --import tsx --test --test-reporter=dot "$@"
