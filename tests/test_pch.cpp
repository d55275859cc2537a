// The tests' shared precompiled header is compiled with this file (tests/CMakeLists.txt,
// gpuprobe_test_pch); every test binary reuses the header. Nothing else is here.
