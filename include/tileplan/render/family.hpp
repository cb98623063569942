// Renderers for `tileplan families`: the kernel families as a table for
// people (name, file, device, input types, fit data, each constant with its
// value, unit and source) or as JSON (each family's file format plus "file").
#pragma once

#include <string>
#include <vector>

#include "tileplan/family.hpp"

namespace tileplan::render {

std::string families_text(const std::vector<KernelFamily>& families);
std::string families_json(const std::vector<KernelFamily>& families);

}  // namespace tileplan::render
