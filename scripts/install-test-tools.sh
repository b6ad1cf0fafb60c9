#!/usr/bin/env bash
# Installs what the tests use besides the solvers (scripts/install-solvers.sh), idempotently:
#   - openssh-server: the ssh launcher's test runs scripts/launch/ssh-workers.sh against a real
#     sshd on localhost;
#   - chromium: the HTML report's test renders it headless;
#   - kubernetes-validate (PyPI): checks scripts/launch/k8s-workers.yaml against the
#     Kubernetes API schema offline.
# Slurm's packages are installed by scripts/launch/slurm-single-node.sh when its test starts.
# A piece still missing at the end is named and the script exits 1 (the test that needs it
# would fail too, saying why), unless DANCEHALL_ALLOW_SKIP=1 is set (a developer's choice to
# skip the tests that need it; scripts/test.sh lists each skip), when it exits 0.
set -u

log() { printf 'install-test-tools: %s\n' "$*" >&2; }

. "$(dirname "$0")/lib/as-root.sh"
. "$(dirname "$0")/lib/apt.sh"
. "$(dirname "$0")/lib/finish.sh"

missing=()
[ -x /usr/sbin/sshd ] || missing+=(openssh-server)
command -v chromium >/dev/null 2>&1 || missing+=(chromium)

apt_install_missing "${missing[@]}"

if command -v python3 >/dev/null 2>&1; then
    if ! command -v kubernetes-validate >/dev/null 2>&1; then
        python3 -m pip install -q --disable-pip-version-check kubernetes-validate >/dev/null 2>&1 \
            || python3 -m pip install -q --disable-pip-version-check --break-system-packages \
                kubernetes-validate >/dev/null 2>&1 \
            || log "pip install kubernetes-validate failed"
    fi
fi

missing=()
echo "test tools available:"
for tool in /usr/sbin/sshd chromium kubernetes-validate; do
    if command -v "$tool" >/dev/null 2>&1; then
        echo "  $tool: $(command -v "$tool")"
    else
        echo "  $tool: not available"
        missing+=("$tool")
    fi
done
finish_install "${missing[@]}"
