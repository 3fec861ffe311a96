# lib-c.sh: what the C scripts share (sourced, not run): the repository root,
# the warning flags every C build uses, the sanitizer flags of test builds,
# where Concurrency Kit is (or RIPPLE_SYNC_C11=1: the C11 layer, without it),
# and which clang has libFuzzer.
#
# Every build here is -std=c11 -Wall -Wextra -Werror. Test programs link the
# engine's sources directly (so internal symbols stay private to the shipped
# libraries) and run under AddressSanitizer and UndefinedBehaviorSanitizer,
# or, for the threaded ones (scripts/tsan-c), under ThreadSanitizer.

RP_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RP_STRICT="-std=c11 -Wall -Wextra -Werror"
RP_SANITIZE="-g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all"
# ThreadSanitizer, with Concurrency Kit's ck_pr on the compiler's builtins: its
# inline assembly is invisible to the sanitizer (sync.h uses the builtins
# directly when it sees the sanitizer).
RP_TSAN="-g -O1 -fsanitize=thread -DCK_USE_CC_BUILTINS=1"
RP_ENGINE_SOURCES=("$RP_ROOT"/Sources/CRipple/*.c)

rp_die() { echo "$(basename "$0"): $*" >&2; exit 1; }

# RIPPLE_SYNC_C11=1 builds the engine on sync.h's C11 layer, as Apple's
# platforms do: no Concurrency Kit in the flags, none linked. RP_SYNC_NAME says
# which layer, for output folders and messages.
if [ -n "${RIPPLE_SYNC_C11:-}" ] && [ "${RIPPLE_SYNC_C11}" != 0 ]; then
    RP_SYNC_NAME=c11
    RP_CK_CFLAGS="-DRIPPLE_SYNC_C11"
    RP_CK_LIBS=""
else
    RP_SYNC_NAME=ck
    command -v pkg-config >/dev/null || rp_die "pkg-config not found"
    pkg-config --exists ck || rp_die "Concurrency Kit not found (pkg-config ck): install libck-dev"
    RP_CK_CFLAGS=$(pkg-config --cflags ck)
    # The engine uses Concurrency Kit header-only (ck_pr's inline atomics): nothing links libck, and `-Wl,-z,defs`
    # in scripts/build-c fails the build if a ck symbol is ever imported.
    RP_CK_LIBS=""
fi

# Sanitizer reports: fail at the first error, symbolized, leaks included.
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=0:detect_leaks=1:strict_string_checks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# The clang that has libFuzzer and the sanitizer runtimes: $CLANG, else the
# Swift toolchain's, else clang on PATH. Sets RP_CLANG and RP_CLANG_LD (lld
# when it sits next to that clang: the toolchain's default gold linker warns
# about every sanitizer symbol).
rp_find_clang() {
    RP_CLANG=${CLANG:-}
    if [ -z "$RP_CLANG" ]; then
        if [ -x /opt/swift/usr/bin/clang ]; then
            RP_CLANG=/opt/swift/usr/bin/clang
        else
            RP_CLANG=$(command -v clang || true)
        fi
    fi
    [ -n "$RP_CLANG" ] || rp_die "no clang found: set CLANG to a clang with libFuzzer"
    RP_CLANG_LD=""
    if [ -x "$(dirname "$RP_CLANG")/ld.lld" ]; then RP_CLANG_LD="-fuse-ld=lld"; fi
    local symbolizer
    symbolizer="$(dirname "$RP_CLANG")/llvm-symbolizer"
    if [ -x "$symbolizer" ]; then export ASAN_SYMBOLIZER_PATH=${ASAN_SYMBOLIZER_PATH:-$symbolizer}; fi
}

# rp_build_test OUT SOURCE [extra flags...]: builds a test program with the
# engine's sources under ASan and UBSan (with $CC, default cc).
rp_build_test() {
    local out=$1 source=$2
    shift 2
    mkdir -p "$(dirname "$out")"
    # shellcheck disable=SC2086
    ${CC:-cc} $RP_STRICT $RP_SANITIZE $RP_CK_CFLAGS -I"$RP_ROOT/include" "$@" \
        "${RP_ENGINE_SOURCES[@]}" "$source" -o "$out" $RP_CK_LIBS
}

# rp_build_tsan OUT SOURCE [extra flags...]: builds a test program with the
# engine's sources under ThreadSanitizer (with $TSAN_CC, default gcc).
rp_build_tsan() {
    local out=$1 source=$2
    shift 2
    mkdir -p "$(dirname "$out")"
    # shellcheck disable=SC2086
    ${TSAN_CC:-gcc} $RP_STRICT $RP_TSAN $RP_CK_CFLAGS -I"$RP_ROOT/include" "$@" \
        "${RP_ENGINE_SOURCES[@]}" "$source" -o "$out" $RP_CK_LIBS
}
