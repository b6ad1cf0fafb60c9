# Sourced by the install scripts (after a `log` function): `finish_install WHAT...` ends the
# script once it has listed what is available. WHAT names each needed piece that is still
# missing. None: status 0. Some: status 1, naming them, so that scripts/test.sh stops before
# the tests; unless DANCEHALL_ALLOW_SKIP=1 (a developer without root who chose to skip the
# tests that need them, each skip then listed by scripts/test.sh): status 0, with a warning.
finish_install() {
    [ "$#" -gt 0 ] || exit 0
    local list
    list=$(printf '%s, ' "$@")
    list=${list%, }
    if [ "${DANCEHALL_ALLOW_SKIP:-}" = 1 ]; then
        log "missing: $list; DANCEHALL_ALLOW_SKIP=1: the tests that need them will skip"
        exit 0
    fi
    log "missing: $list: could not install (needs root or password-less sudo, and the network);"
    log "set DANCEHALL_ALLOW_SKIP=1 to skip the tests that need them instead"
    exit 1
}
