// The installed data folder next to the running binary (src/cli/install_paths.hpp).
#include "install_paths.hpp"

#include <filesystem>

namespace gpuprobe::cli {

std::optional<std::string> installed_data(const std::string& relative) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return std::nullopt;
  const fs::path path = exe.parent_path().parent_path() / "share" / "gpuprobe" / relative;
  if (!fs::exists(path, ec)) return std::nullopt;
  return path.string();
}

}  // namespace gpuprobe::cli
