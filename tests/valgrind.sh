#!/bin/sh
# valgrind.sh - run a Check runner under valgrind (memcheck) in one process
# (CK_FORK=no), leaving out the tests that abort on purpose (tag "abort").
# Fails on any leak or memory error. Usage: valgrind.sh RUNNER
runner=${1:-tests/check_sim}
if ! command -v valgrind >/dev/null 2>&1; then
    echo "valgrind.sh: skipped: valgrind is not installed"
    exit 77
fi
case "${SAN_BUILD:-no}" in yes)
    echo "valgrind.sh: skipped: sanitizer build (ASan and valgrind do not mix)"
    exit 77 ;;
esac
CK_FORK=no CK_EXCLUDE_TAGS=abort exec valgrind -q --error-exitcode=1 \
    --leak-check=full --errors-for-leak-kinds=definite,indirect \
    "$runner"
