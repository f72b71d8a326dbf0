// The version written into every result: the project version and the git commit the
// binary was built from (generated at build configuration; a new commit regenerates it).
#pragma once

namespace rocelab {

const char* rocelab_version();

}  // namespace rocelab
