#!/usr/bin/env bash
# Installs the Debian packages Warpbench needs to build and test, if missing.
# As root it runs apt-get; otherwise it lists the packages and the command.
set -euo pipefail

packages=(
  build-essential cmake pkg-config clang-format git
  libncurses-dev libsqlite3-dev liblua5.4-dev libcmocka-dev libmd4c-dev
  libdnnl-dev
  # reading JSON (jansson), display width (utf8proc), the student-code
  # sandbox (libseccomp), reading design answers (link-grammar, hunspell)
  libjansson-dev libutf8proc-dev libseccomp-dev
  liblink-grammar-dev link-grammar-dictionaries-all libhunspell-dev hunspell-en-us
  sqlite3 tmux jq locales
  # the distributed labs across machines (transport=mpi, scripts/netlab.sh)
  libopenmpi-dev openmpi-bin iproute2
)

# Some tests run under a decimal-comma locale (de_DE.UTF-8): numbers must
# keep their '.' there. Generates it when missing (Debian's locales package).
ensure_locale() {
  locale -a 2>/dev/null | grep -ixE 'de_DE\.utf-?8' >/dev/null && return 0
  local gen="sed -i 's/^# *de_DE.UTF-8 UTF-8/de_DE.UTF-8 UTF-8/' /etc/locale.gen && locale-gen"
  if [[ $(id -u) -eq 0 ]]; then
    echo "setup: generating the de_DE.UTF-8 locale" >&2
    sh -c "$gen" >/dev/null
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    echo "setup: generating the de_DE.UTF-8 locale with sudo" >&2
    sudo sh -c "$gen" >/dev/null
  else
    echo "setup: the de_DE.UTF-8 locale is missing (its tests will be skipped); generate it with:" >&2
    echo "setup:   sudo sh -c \"$gen\"" >&2
  fi
}

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done

if [[ ${#missing[@]} -eq 0 ]]; then
  ensure_locale
  exit 0
fi

if [[ $(id -u) -eq 0 ]]; then
  echo "setup: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  echo "setup: installing ${missing[*]} with sudo" >&2
  sudo DEBIAN_FRONTEND=noninteractive apt-get update -qq
  sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  echo "setup: these Debian packages are missing: ${missing[*]}" >&2
  echo "setup: install them with:  sudo apt-get install ${missing[*]}" >&2
  exit 1
fi
ensure_locale
