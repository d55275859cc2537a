// The libraries' shared precompiled header is compiled with this file (CMakeLists.txt,
// gpuprobe_lib_pch); every host library and program reuses the header. Nothing else is here.
