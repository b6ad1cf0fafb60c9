# Sourced by the project's scripts: `as_root CMD...` runs CMD as root (directly, or through
# password-less sudo); otherwise it says so through the caller's `log` and fails.
as_root() {
    if [ "$(id -u)" = 0 ]; then
        "$@"
    elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
        sudo -n "$@"
    else
        log "not root and no password-less sudo: cannot run $*"
        return 1
    fi
}
