// What a GPU API says about a device beyond ggml's device props (driver, precision features). Only the
// Vulkan variant has a reader; every other build answers "nothing known".
#pragma once

#include <optional>
#include <string>

#include "parakeet/parakeet.h"

namespace parakeet {

/**
 * The Vulkan physical device ggml describes as `description` (its deviceName), the `occurrence`-th of that
 * name (two identical cards), or nothing: not a Vulkan build, no loader, no such device.
 */
std::optional<GpuProperties> vulkan_properties(const std::string & description, int occurrence);

}  // namespace parakeet
