// Vulkan device properties, queried straight from the Vulkan loader (runtime/gpu_properties.h).
//
// Why not through ggml: ggml's device props carry name, memory and type only, and ggml-vulkan prints its
// feature line (fp16, int dot, matrix cores) to the debug log without exposing it. Why the loader is
// opened at run time rather than linked: the addon must still load on a machine without a Vulkan loader
// (it then runs on the CPU); ggml-vulkan itself is what fails there, and it says so.
#include "gpu_properties.h"

#if defined(PARAKEET_VULKAN_PROPERTIES)

#include <cstring>
#include <mutex>
#include <vector>

#if defined(_WIN32)
#include <windows.h>
#else
#include <dlfcn.h>
#endif

#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>

namespace parakeet {
namespace {

/**
 * VK_KHR_cooperative_matrix's feature struct. Debian 12's headers (1.3.239) predate the extension
 * (headers 1.3.255), so its layout is written out here: sType = 1000000000 + (extension 507 - 1) * 1000.
 */
struct CooperativeMatrixFeatures {
    VkStructureType sType = static_cast<VkStructureType>(1000506000);
    void * pNext = nullptr;
    VkBool32 cooperativeMatrix = VK_FALSE;
    VkBool32 cooperativeMatrixRobustBufferAccess = VK_FALSE;
};

PFN_vkGetInstanceProcAddr open_loader() {
#if defined(_WIN32)
    HMODULE lib = LoadLibraryA("vulkan-1.dll");
    return lib ? reinterpret_cast<PFN_vkGetInstanceProcAddr>(reinterpret_cast<void *>(GetProcAddress(lib, "vkGetInstanceProcAddr"))) : nullptr;
#else
#if defined(__APPLE__)
    void * lib = dlopen("libvulkan.1.dylib", RTLD_NOW | RTLD_LOCAL);
#else
    void * lib = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
#endif
    // Kept open: ggml-vulkan uses the same loader for the life of the process.
    return lib ? reinterpret_cast<PFN_vkGetInstanceProcAddr>(dlsym(lib, "vkGetInstanceProcAddr")) : nullptr;
#endif
}

std::string version_text(uint32_t v) {
    return std::to_string(VK_API_VERSION_MAJOR(v)) + "." + std::to_string(VK_API_VERSION_MINOR(v)) + "." +
           std::to_string(VK_API_VERSION_PATCH(v));
}

struct Named {
    std::string name;
    GpuProperties props;
};

template <typename Fn>
Fn instance_fn(PFN_vkGetInstanceProcAddr get, VkInstance instance, const char * name) {
    return reinterpret_cast<Fn>(get(instance, name));
}

bool has_extension(const std::vector<VkExtensionProperties> & extensions, const char * name) {
    for (const VkExtensionProperties & e : extensions)
        if (std::strcmp(e.extensionName, name) == 0) return true;
    return false;
}

/** One physical device's properties, the feature structs chained only where the device offers them. */
GpuProperties describe(VkInstance instance, PFN_vkGetInstanceProcAddr get, VkPhysicalDevice device) {
    auto properties = instance_fn<PFN_vkGetPhysicalDeviceProperties>(get, instance, "vkGetPhysicalDeviceProperties");
    auto properties2 = instance_fn<PFN_vkGetPhysicalDeviceProperties2>(get, instance, "vkGetPhysicalDeviceProperties2");
    auto features2 = instance_fn<PFN_vkGetPhysicalDeviceFeatures2>(get, instance, "vkGetPhysicalDeviceFeatures2");
    auto extensions_of = instance_fn<PFN_vkEnumerateDeviceExtensionProperties>(get, instance, "vkEnumerateDeviceExtensionProperties");

    VkPhysicalDeviceProperties basic{};
    properties(device, &basic);
    uint32_t count = 0;
    extensions_of(device, nullptr, &count, nullptr);
    std::vector<VkExtensionProperties> extensions(count);
    extensions_of(device, nullptr, &count, extensions.data());
    const bool v12 = basic.apiVersion >= VK_API_VERSION_1_2;
    const bool v13 = basic.apiVersion >= VK_API_VERSION_1_3;

    GpuProperties out;
    out.api = "Vulkan";
    out.api_version = version_text(basic.apiVersion);
    out.cpu_device = basic.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;

    VkPhysicalDeviceProperties2 props2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, nullptr, {}};
    VkPhysicalDeviceDriverProperties driver{};
    driver.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES;
    VkPhysicalDeviceShaderIntegerDotProductProperties dot_props{};
    dot_props.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_INTEGER_DOT_PRODUCT_PROPERTIES;
    const bool has_driver = v12 || has_extension(extensions, "VK_KHR_driver_properties");
    const bool has_dot = v13 || has_extension(extensions, "VK_KHR_shader_integer_dot_product");
    void ** props_tail = &props2.pNext;
    if (has_driver) { *props_tail = &driver; props_tail = &driver.pNext; }
    if (has_dot) { *props_tail = &dot_props; props_tail = &dot_props.pNext; }
    properties2(device, &props2);
    if (has_driver) {
        out.driver_name = driver.driverName;
        out.driver_info = driver.driverInfo;
    }

    VkPhysicalDeviceFeatures2 feats2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, nullptr, {}};
    VkPhysicalDevice16BitStorageFeatures storage16{};
    storage16.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES;
    VkPhysicalDeviceShaderFloat16Int8Features float16{};
    float16.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES;
    VkPhysicalDeviceShaderIntegerDotProductFeatures dot_feats{};
    dot_feats.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_INTEGER_DOT_PRODUCT_FEATURES;
    CooperativeMatrixFeatures coopmat;
    const bool has_float16 = v12 || has_extension(extensions, "VK_KHR_shader_float16_int8");
    const bool has_coopmat = has_extension(extensions, "VK_KHR_cooperative_matrix");
    void ** feats_tail = &feats2.pNext;
    *feats_tail = &storage16;
    feats_tail = &storage16.pNext;
    if (has_float16) { *feats_tail = &float16; feats_tail = &float16.pNext; }
    if (has_dot) { *feats_tail = &dot_feats; feats_tail = &dot_feats.pNext; }
    if (has_coopmat) { *feats_tail = &coopmat; feats_tail = &coopmat.pNext; }
    features2(device, &feats2);

    // The conditions ggml-vulkan applies before it uses each path (ggml_vk_get_device: fp16 needs 16-bit
    // storage and float16 arithmetic; int dot needs the accelerated packed signed 4×8-bit dot).
    out.fp16 = storage16.storageBuffer16BitAccess && has_float16 && float16.shaderFloat16;
    out.integer_dot = has_dot && dot_feats.shaderIntegerDotProduct && dot_props.integerDotProduct4x8BitPackedSignedAccelerated;
    out.cooperative_matrix = has_coopmat && coopmat.cooperativeMatrix;
    return out;
}

/** Every physical device the loader lists, read once per process (an instance costs a few ms to make). */
const std::vector<Named> & all_devices() {
    static std::vector<Named> devices;
    static std::once_flag once;
    std::call_once(once, [] {
        PFN_vkGetInstanceProcAddr get = open_loader();
        if (get == nullptr) return;
        auto instance_version = instance_fn<PFN_vkEnumerateInstanceVersion>(get, nullptr, "vkEnumerateInstanceVersion");
        uint32_t loader_version = VK_API_VERSION_1_0;
        if (instance_version != nullptr) instance_version(&loader_version);
        // Properties2/Features2 are core in 1.1; a 1.0 loader has too little to report.
        if (loader_version < VK_API_VERSION_1_1) return;
        auto create = instance_fn<PFN_vkCreateInstance>(get, nullptr, "vkCreateInstance");
        if (create == nullptr) return;
        VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO, nullptr, "parakeet-devices", 1, nullptr, 0,
                              loader_version >= VK_API_VERSION_1_3 ? VK_API_VERSION_1_3 : loader_version};
        VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, nullptr, 0, &app, 0, nullptr, 0, nullptr};
        VkInstance instance = VK_NULL_HANDLE;
        if (create(&info, nullptr, &instance) != VK_SUCCESS) return;
        auto enumerate = instance_fn<PFN_vkEnumeratePhysicalDevices>(get, instance, "vkEnumeratePhysicalDevices");
        auto properties = instance_fn<PFN_vkGetPhysicalDeviceProperties>(get, instance, "vkGetPhysicalDeviceProperties");
        uint32_t count = 0;
        enumerate(instance, &count, nullptr);
        std::vector<VkPhysicalDevice> physical(count);
        enumerate(instance, &count, physical.data());
        for (VkPhysicalDevice device : physical) {
            VkPhysicalDeviceProperties basic{};
            properties(device, &basic);
            devices.push_back({basic.deviceName, describe(instance, get, device)});
        }
        instance_fn<PFN_vkDestroyInstance>(get, instance, "vkDestroyInstance")(instance, nullptr);
    });
    return devices;
}

}  // namespace

std::optional<GpuProperties> vulkan_properties(const std::string & description, int occurrence) {
    int seen = 0;
    for (const Named & d : all_devices()) {
        if (d.name != description) continue;
        if (seen++ == occurrence) return d.props;
    }
    return std::nullopt;
}

}  // namespace parakeet

#else

namespace parakeet {

std::optional<GpuProperties> vulkan_properties(const std::string &, int) { return std::nullopt; }

}  // namespace parakeet

#endif
