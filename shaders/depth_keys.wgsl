// Depth keys: for each splat, a u32 whose ascending order is back to front
// (the view-space z, negative in front of the camera, as an order-preserving
// integer), and the splat's index as the value. The radix sort then orders
// the indices; the renderer draws them in that order.
//
// Full precision: the key is the float's own bit pattern made monotonic, so
// 32-bit keys order splats exactly as their computed depths compare. With
// fewer key bits the low bits are dropped (key_shift): 16 bits keep the sign,
// the exponent and 7 mantissa bits, a relative depth step under 1%.

// The scene's bindings (1..5) are declared in splat_common.wgsl.
@group(0) @binding(0) var<uniform> frame: Frame;
@group(0) @binding(6) var<storage, read_write> keys: array<u32>;
@group(0) @binding(7) var<storage, read_write> values: array<u32>;

fn ordered_bits(f: f32) -> u32 {
  let bits = bitcast<u32>(f);
  // Negative floats: flip every bit; positive: flip the sign bit.
  let mask = select(0x80000000u, 0xffffffffu, (bits >> 31u) == 1u);
  return bits ^ mask;
}

@compute @workgroup_size(256)
fn main(
  @builtin(workgroup_id) wid: vec3<u32>,
  @builtin(num_workgroups) groups: vec3<u32>,
  @builtin(local_invocation_index) lid: u32,
) {
  let i = (wid.y * groups.x + wid.x) * 256u + lid;
  if (i >= frame.count) {
    return;
  }
  let z = (frame.view * vec4<f32>(load_position(i), 1.0)).z;
  keys[i] = ordered_bits(z) >> frame.key_shift;
  values[i] = i;
}
