#!/usr/bin/env bash
# Debian tools the tests use to verify what Platen produces (qpdf, poppler,
# the vips CLI, which the image bench also runs as a baseline, HarfBuzz's and
# fontTools' font tools) and to run the multi-node mode (redis-server). Installed when
# missing and running as root (CI, fresh machines); otherwise we say exactly
# what to install and stop, rather than letting tests fail obscurely.
set -euo pipefail
declare -A package_of=([qpdf]=qpdf [pdftotext]=poppler-utils [pdfinfo]=poppler-utils [pdffonts]=poppler-utils [redis-server]=redis-server [redis-cli]=redis-tools
  [vips]=libvips-tools [vipsheader]=libvips-tools [hb-subset]=libharfbuzz-bin [fc-scan]=fontconfig [ttx]=fonttools [fonttools]=fonttools)
# Files the font tests read: a CJK collection (TTC of CFF faces, 19 MB) from Debian.
declare -A package_of_file=([/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc]=fonts-noto-cjk)
missing=()
for tool in "${!package_of[@]}"; do
  command -v "$tool" >/dev/null 2>&1 || missing+=("${package_of[$tool]}")
done
for file in "${!package_of_file[@]}"; do
  [ -f "$file" ] || missing+=("${package_of_file[$file]}")
done
[ ${#missing[@]} -eq 0 ] && exit 0
packages=$(printf '%s\n' "${missing[@]}" | sort -u | tr '\n' ' ')
if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "test/tools.sh: installing $packages"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  # shellcheck disable=SC2086
  apt-get install -y -qq --no-install-recommends $packages >/dev/null
else
  echo "test/tools.sh: the tests need these Debian packages: $packages" >&2
  echo "  install them with: sudo apt-get install -y $packages" >&2
  exit 1
fi
