# Sourced by the install scripts (after lib/as-root.sh and a `log` function):
# `apt_install_missing PKG...` installs the Debian packages given, quietly, updating the
# package lists once and only when an install from the current lists fails. A package that
# cannot be installed is logged, not fatal here: each install script then checks what it
# needs and fails at its end (lib/finish.sh).
apt_install_missing() {
    [ "$#" -gt 0 ] || return 0
    if ! command -v apt-get >/dev/null 2>&1; then
        log "no apt-get: cannot install $*"
        return 0
    fi
    export DEBIAN_FRONTEND=noninteractive
    apt_install() {
        as_root apt-get install -y -q --no-install-recommends "$@" >/dev/null 2>&1
    }
    if ! apt_install "$@"; then
        log "apt-get update (once)"
        as_root apt-get update -q >/dev/null 2>&1 || log "apt-get update failed"
        for pkg in "$@"; do
            apt_install "$pkg" || log "could not install Debian package $pkg"
        done
    fi
}
