// Our own small guards in the pinned ggml source, applied by scripts/ggml-source.mjs when it fetches it.
//
// Why: ggml's Vulkan backend must build with Debian 12's packages (glslc from shaderc 2023.2, Vulkan
// 1.3.239 headers; bookworm-backports has nothing newer). The pinned release assumes newer ones twice:
//   1. It compiles the Intel-Xe flash-attention decode shaders (`fa_decode_ph1/ph2`, cooperative-matrix
//      variants) unconditionally, while every other cooperative-matrix shader waits for CMake's
//      `GGML_VULKAN_COOPMAT_GLSLC_SUPPORT` probe; that glslc has no GL_KHR_cooperative_matrix.
//   2. It fills a `vk::LayerSettingsCreateInfoEXT` (VK_EXT_layer_settings, headers ≥ 1.3.261) for the
//      validation layer, which only a GGML_VULKAN_VALIDATE build ever enables.
// Each guard takes the branch upstream's own probes would take with the older tools (no Xe decode
// pipelines without their shaders; no layer settings without the extension), so with newer tools the
// guarded code compiles exactly as upstream's.
//
// Every hunk quotes the exact upstream text it wraps. The fetch stops with the file and hunk named when a
// quoted text is missing, and when the pin (GGML_PIN in ggml-source.mjs) is not the commit these hunks
// were reviewed for: moving the pin means re-reading them against the new source, then updating
// PATCHES_REVIEWED_FOR (a hunk upstream made unnecessary is deleted).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The llama.cpp commit these hunks were written and checked against. */
export const PATCHES_REVIEWED_FOR = 'de3ff815ea7d559ee917f063901b8986f038abc6';

/** Opens every guard we add, so an applied hunk is recognised (and not applied twice). */
const MARK = 'parakeet guard';

/** `text` wrapped in `#if condition` … (`#else` elseText) `#endif`, with the reason on the `#if` line. */
function guarded(condition, why, text, elseText) {
  return `#if ${condition}  // ${MARK}: ${why}\n${text}${elseText ? `#else\n${elseText}` : ''}#endif  // ${MARK}\n`;
}

const VULKAN_SHADER_GEN = 'src/ggml-vulkan/vulkan-shaders/vulkan-shaders-gen.cpp';
const VULKAN_BACKEND = 'src/ggml-vulkan/ggml-vulkan.cpp';
const COOPMAT = 'defined(GGML_VULKAN_COOPMAT_GLSLC_SUPPORT)';

const decodeShaders =
  '    string_to_spv("fa_decode_ph1", "flash_attn_decode_phase_1.comp", {}, true, true, false, false);\n' +
  '    string_to_spv("fa_decode_ph2", "flash_attn_decode_phase_2.comp", {}, true, true, false, false);\n';

const decodePipelines =
  '            ggml_vk_create_pipeline(device, pipelines.first, "xe_fa_decode_ph1", fa_decode_ph1_cm1_len, fa_decode_ph1_cm1_data, "main", 5, sizeof(vk_fa_xe_opt_push_constants), { 1, 32, 1 }, { group_sz_ph1, gqa_ratio, head_dim_qk, xe_native_sub_group_size, split_p_chunk, out_per_wg_ph1 }, 1, false, true, xe_native_sub_group_size);\n' +
  '            ggml_vk_create_pipeline(device, pipelines.second, "xe_fa_decode_ph2", fa_decode_ph2_cm1_len, fa_decode_ph2_cm1_data, "main", 5, sizeof(vk_fa_xe_opt_push_constants), { 1, 1, 1 }, { group_sz_ph2, gqa_ratio, head_dim_pv, out_per_wg_ph2, xe_native_sub_group_size, split_p_per_iter_ph2, split_p_chunk, out_dim_per_wg }, 1, false, true, xe_native_sub_group_size);\n';

const decodeDispatch = '    bool xe_fa_supported_usage = neq0 % 32 == 0';

const layerSettings =
  '    VkBool32 enable_best_practice = layer_settings;\n' +
  '    std::vector<vk::LayerSettingEXT> settings = {\n' +
  '        {\n' +
  '            "VK_LAYER_KHRONOS_validation",\n' +
  '            "validate_best_practices",\n' +
  '            vk::LayerSettingTypeEXT::eBool32,\n' +
  '            1,\n' +
  '            &enable_best_practice\n' +
  '        },\n' +
  '    };\n' +
  '    vk::LayerSettingsCreateInfoEXT layer_setting_info(settings);\n' +
  '    vk::InstanceCreateInfo instance_create_info(vk::InstanceCreateFlags{}, &app_info, layers, extensions, &layer_setting_info);\n';

/** `{ id, file, find, replace }`: `find` is upstream's exact text, `replace` holds it inside our guard. */
export const GGML_PATCHES = Object.freeze([
  {
    id: 'vulkan-xe-decode-shaders',
    file: VULKAN_SHADER_GEN,
    find: decodeShaders,
    replace: guarded(COOPMAT, 'cooperative-matrix shaders need a glslc that has GL_KHR_cooperative_matrix', decodeShaders),
  },
  {
    id: 'vulkan-xe-decode-pipelines',
    file: VULKAN_BACKEND,
    find: decodePipelines,
    replace: guarded(COOPMAT, 'their shaders exist only then (vulkan-shaders-gen.cpp)', decodePipelines),
  },
  {
    id: 'vulkan-xe-decode-dispatch',
    file: VULKAN_BACKEND,
    find: decodeDispatch,
    replace: guarded(`!${COOPMAT}`, 'no decode pipelines were built, so never choose them', '    xe_fa_supported_platform = false;\n') +
      decodeDispatch,
  },
  {
    id: 'vulkan-layer-settings',
    file: VULKAN_BACKEND,
    find: layerSettings,
    replace: guarded('defined(VK_EXT_layer_settings)', 'Vulkan headers < 1.3.261 lack VK_EXT_layer_settings', layerSettings,
      '    vk::InstanceCreateInfo instance_create_info(vk::InstanceCreateFlags{}, &app_info, layers, extensions);\n'),
  },
]);

/**
 * Applies every hunk to the ggml tree at `ggmlDir` (the folder holding ggml's CMakeLists.txt) and returns the ids
 * applied now. A hunk already applied is skipped; a hunk whose upstream text is missing, or found more than
 * once, throws with the file and hunk named.
 */
export function applyGgmlPatches(ggmlDir, { pinnedCommit }) {
  if (pinnedCommit !== PATCHES_REVIEWED_FOR) {
    throw new Error(
      `scripts/ggml-patches.mjs was reviewed for llama.cpp ${PATCHES_REVIEWED_FOR.slice(0, 12)}, but the pin is ${pinnedCommit.slice(0, 12)}.\n` +
        '  Re-read each hunk against the new source (drop those upstream made unnecessary), then set PATCHES_REVIEWED_FOR.',
    );
  }
  const applied = [];
  for (const patch of GGML_PATCHES) {
    const path = join(ggmlDir, patch.file);
    if (!existsSync(path)) throw new Error(`ggml patch "${patch.id}": ${patch.file} is missing in ${ggmlDir}`);
    const text = readFileSync(path, 'utf8');
    if (text.includes(patch.replace)) continue;
    const first = text.indexOf(patch.find);
    if (first < 0) {
      throw new Error(`ggml patch "${patch.id}": the upstream text it wraps is not in ${patch.file} (the source changed; review scripts/ggml-patches.mjs)`);
    }
    if (text.indexOf(patch.find, first + 1) >= 0) {
      throw new Error(`ggml patch "${patch.id}": the upstream text it wraps occurs more than once in ${patch.file}; make the hunk unambiguous`);
    }
    writeFileSync(path, text.slice(0, first) + patch.replace + text.slice(first + patch.find.length));
    applied.push(patch.id);
  }
  return applied;
}

/** The ids of the hunks whose guarded text is in the tree (for a GGML_SOURCE_DIR checkout, which we never edit). */
export function appliedGgmlPatches(ggmlDir) {
  return GGML_PATCHES.filter((patch) => {
    const path = join(ggmlDir, patch.file);
    return existsSync(path) && readFileSync(path, 'utf8').includes(patch.replace);
  }).map((patch) => patch.id);
}
