# Sourced by scripts/setup.sh and the Makefile's check builds: ccache keyed on paths relative to
# the source tree, so build/, build-check/ and another clone share objects whose compile lines
# agree (the CUDA objects, built with the same flags in every build).
CCACHE_BASEDIR=${CCACHE_BASEDIR:-$(pwd)}
CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}
export CCACHE_BASEDIR CCACHE_NOHASHDIR
# The tests' precompiled header (tests/CMakeLists.txt) is cacheable only with these.
CCACHE_SLOPPINESS=${CCACHE_SLOPPINESS:-pch_defines,time_macros}
export CCACHE_SLOPPINESS
