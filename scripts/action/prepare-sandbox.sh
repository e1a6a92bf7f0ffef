#!/usr/bin/env bash
# The action's sandbox step (action.yml): makes Evergreen's command sandbox possible on this runner.
# Linux needs bubblewrap, socat and ripgrep, and user namespaces that may hold capabilities; Ubuntu
# 24.04 and later restrict those through AppArmor (kernel.apparmor_restrict_unprivileged_userns=1),
# GitHub's ubuntu-24.04 runners included. With configure-sandbox on (the default) this installs what
# is missing and lifts that restriction, both with the runner's passwordless sudo. It never turns
# the sandbox off: where it cannot do this, the run step stops with the sandbox's own reason.
set -uo pipefail

configure="${EVERGREEN_CONFIGURE_SANDBOX:-true}"
note() { echo "evergreen: $*"; }
can_sudo() { [ "$(id -u)" = 0 ] || sudo -n true 2>/dev/null; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo -n "$@"; fi; }

case "$(uname -s)" in
  Linux) ;;
  Darwin)
    # Seatbelt ships with macOS; the sandbox needs ripgrep beside it.
    if ! command -v rg >/dev/null 2>&1 && [ "$configure" = true ]; then brew install ripgrep >/dev/null || note "could not install ripgrep with Homebrew"; fi
    exit 0 ;;
  *)
    echo "::error title=Evergreen::Evergreen's command sandbox runs on Linux and macOS runners only; this runner is $(uname -s)."
    exit 1 ;;
esac

missing=()
command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
command -v socat >/dev/null 2>&1 || missing+=(socat)
command -v rg >/dev/null 2>&1 || missing+=(ripgrep)
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$configure" != true ]; then
    note "the sandbox needs ${missing[*]} (configure-sandbox is off, so they were not installed)"
  elif ! can_sudo; then
    note "the sandbox needs ${missing[*]} and this runner has no passwordless sudo to install them"
  else
    note "installing ${missing[*]} for the sandbox"
    export DEBIAN_FRONTEND=noninteractive
    as_root apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null 2>&1 \
      || { as_root apt-get update -q >/dev/null 2>&1 && as_root apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null; } \
      || note "installing ${missing[*]} failed"
  fi
fi

restriction=/proc/sys/kernel/apparmor_restrict_unprivileged_userns
if [ -r "$restriction" ] && [ "$(cat "$restriction")" = 1 ]; then
  if [ "$configure" != true ]; then
    note "AppArmor restricts unprivileged user namespaces here (configure-sandbox is off, so it was left on)"
  elif ! can_sudo; then
    note "AppArmor restricts unprivileged user namespaces here and this runner has no passwordless sudo to lift it"
  else
    # For this VM only: a GitHub-hosted runner is discarded after the job.
    as_root sysctl -q -w kernel.apparmor_restrict_unprivileged_userns=0 && note "lifted AppArmor's restriction on unprivileged user namespaces for the sandbox"
  fi
fi
exit 0
