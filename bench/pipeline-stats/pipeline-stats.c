// Prints the NVIDIA (or any) Vulkan driver's statistics for one compute shader that Dawn built for the
// radix sort's pass layout: registers per invocation and workgroup memory, which set how many
// workgroups a multiprocessor runs at once. Uses VK_KHR_pipeline_executable_properties.
// Build: gcc -O1 -o pipeline-stats pipeline-stats.c -lvulkan   Usage: pipeline-stats shader.spv dawn_entry_point
#include <vulkan/vulkan.h>
#include <stdio.h>
#include <stdlib.h>
#define CK(x) do { VkResult r_ = (x); if (r_ != VK_SUCCESS) { fprintf(stderr, "%s failed: %d\n", #x, r_); exit(1); } } while (0)
int main(int argc, char **argv) {
  if (argc != 3) { fprintf(stderr, "usage: pipeline-stats shader.spv entry_point\n"); return 2; }
  FILE *f = fopen(argv[1], "rb");
  if (!f) { perror(argv[1]); return 1; } fseek(f, 0, SEEK_END); long n = ftell(f); fseek(f, 0, SEEK_SET);
  uint32_t *code = malloc(n); fread(code, 1, n, f); fclose(f);
  VkApplicationInfo app = { VK_STRUCTURE_TYPE_APPLICATION_INFO, 0, "vkstats", 1, 0, 0, VK_API_VERSION_1_3 };
  VkInstanceCreateInfo ici = { VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, 0, 0, &app };
  VkInstance inst; CK(vkCreateInstance(&ici, 0, &inst));
  uint32_t cnt = 1; VkPhysicalDevice pd; vkEnumeratePhysicalDevices(inst, &cnt, &pd);
  float prio = 1; VkDeviceQueueCreateInfo q = { VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, 0, 0, 0, 1, &prio };
  VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR pe = { VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR, 0, VK_TRUE };
  VkPhysicalDeviceVulkan13Features v13 = { VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES, &pe };
  v13.maintenance4 = VK_TRUE; v13.subgroupSizeControl = VK_TRUE; v13.computeFullSubgroups = VK_TRUE; v13.shaderZeroInitializeWorkgroupMemory = VK_TRUE;
  VkPhysicalDeviceVulkan12Features v12 = { VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES, &v13 };
  v12.vulkanMemoryModel = VK_TRUE; v12.vulkanMemoryModelDeviceScope = VK_TRUE; v12.shaderFloat16 = VK_TRUE;
  VkPhysicalDeviceVulkan11Features v11 = { VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES, &v12 };
  v11.storageBuffer16BitAccess = VK_TRUE;
  const char *ext[] = { "VK_KHR_pipeline_executable_properties" };
  VkDeviceCreateInfo dci = { VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, &v11, 0, 1, &q, 0, 0, 1, ext };
  VkDevice dev; CK(vkCreateDevice(pd, &dci, 0, &dev));
  VkShaderModuleCreateInfo smci = { VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, 0, 0, (size_t)n, code };
  VkShaderModule sm; CK(vkCreateShaderModule(dev, &smci, 0, &sm));
  // The radix pass layout as Dawn lays it out: 0 dynamic uniform, 1-6 storage, 7 uniform.
  VkDescriptorSetLayoutBinding b[8];
  for (int i = 0; i < 8; i++)
    b[i] = (VkDescriptorSetLayoutBinding){ i, i == 0 ? VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC : (i == 7 ? VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER), 1, VK_SHADER_STAGE_COMPUTE_BIT, 0 };
  VkDescriptorSetLayoutCreateInfo dl = { VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO, 0, 0, 8, b };
  VkDescriptorSetLayout dsl; CK(vkCreateDescriptorSetLayout(dev, &dl, 0, &dsl));
  VkPushConstantRange pcr = { VK_SHADER_STAGE_COMPUTE_BIT, 0, 128 };
  VkPipelineLayoutCreateInfo plci = { VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, 0, 0, 1, &dsl, 1, &pcr };
  VkPipelineLayout pl; CK(vkCreatePipelineLayout(dev, &plci, 0, &pl));
  VkComputePipelineCreateInfo cpci = { VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO, 0, VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR,
    { VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, 0, 0, VK_SHADER_STAGE_COMPUTE_BIT, sm, argv[2], 0 }, pl, 0, -1 };
  VkPipeline p; CK(vkCreateComputePipelines(dev, 0, 1, &cpci, 0, &p));
  PFN_vkGetPipelineExecutableStatisticsKHR gs = (void *)vkGetDeviceProcAddr(dev, "vkGetPipelineExecutableStatisticsKHR");
  VkPipelineExecutableInfoKHR ei = { VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR, 0, p, 0 };
  uint32_t ns = 0; CK(gs(dev, &ei, &ns, 0));
  VkPipelineExecutableStatisticKHR *st = calloc(ns, sizeof *st);
  for (uint32_t i = 0; i < ns; i++) st[i].sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR;
  CK(gs(dev, &ei, &ns, st));
  for (uint32_t i = 0; i < ns; i++) if (st[i].format == VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR) printf("  %s = %llu\n", st[i].name, (unsigned long long)st[i].value.u64);
  return 0;
}
