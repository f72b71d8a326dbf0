#include "cli/plot_cmd.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <vector>

#include "python_package.h"  // generated from python/rocelab/: kPythonPackage

extern char** environ;

namespace rocelab {

namespace {

// Debian's interpreter first: python3-matplotlib installs for it, not for another python3
// that may come first on PATH.
std::string python() {
  return std::filesystem::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
}

// The package the binary carries, written out as DIR/rocelab/: the binary runs the module
// of the version it was built with, wherever it is installed.
std::filesystem::path write_package() {
  char dir[] = "/tmp/rocelab_py_XXXXXX";
  if (!::mkdtemp(dir)) throw std::runtime_error("cannot create a temporary directory");
  const std::filesystem::path root(dir);
  std::filesystem::create_directories(root / "rocelab");
  for (const EmbeddedFile& f : kPythonPackage) std::ofstream(root / "rocelab" / f.name) << f.text;
  return root;
}

}  // namespace

int run_plot_script(const std::string& mode, const std::string& dir, const std::string& out) {
  const std::filesystem::path root = write_package();
  const std::string py = python();
  // Not `-m`, which puts the current directory ahead of PYTHONPATH: a `rocelab/` there (a
  // checkout's python/) would shadow the carried package.
  std::vector<std::string> args = {py,
                                   "-B",
                                   "-c",
                                   "import runpy, sys; sys.path.insert(0, sys.argv.pop(1)); "
                                   "runpy.run_module('rocelab.plot', run_name='__main__')",
                                   root.string(),
                                   mode,
                                   dir,
                                   out};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  // The carried package first on the path, ahead of any other rocelab package.
  std::vector<std::string> env_text;
  const char* old_path = std::getenv("PYTHONPATH");
  env_text.push_back("PYTHONPATH=" + root.string() +
                     (old_path && *old_path ? ":" + std::string(old_path) : ""));
  for (char** e = environ; *e; ++e)
    if (std::string(*e).rfind("PYTHONPATH=", 0) != 0) env_text.emplace_back(*e);
  std::vector<char*> envp;
  for (auto& e : env_text) envp.push_back(e.data());
  envp.push_back(nullptr);
  pid_t pid = 0;
  const int err = ::posix_spawnp(&pid, py.c_str(), nullptr, nullptr, argv.data(), envp.data());
  int status = 0;
  if (err == 0) ::waitpid(pid, &status, 0);
  std::error_code ignored;
  std::filesystem::remove_all(root, ignored);
  if (err != 0)
    throw std::runtime_error("cannot start " + py + ": `rocelab " + mode +
                             "` needs python3 (and python3-matplotlib for figures)");
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

}  // namespace rocelab
