// The shipped kernel-family files (data/families/*.json), compiled into the
// library by the build (CMake writes family_files.cpp from the files).
#pragma once

#include <cstddef>

namespace tileplan::detail {

struct EmbeddedFile {
  const char* path;  // relative to the source tree, e.g. "data/families/triton.json"
  const char* text;
};
extern const EmbeddedFile kShippedFamilies[];
extern const std::size_t kShippedFamilyCount;

}  // namespace tileplan::detail
