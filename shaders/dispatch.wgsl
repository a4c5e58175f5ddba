// The flat dispatch: a run of workgroups, one after another, laid out as
// a 2-D grid of rows `row` workgroups wide because a run may hold more
// workgroups than one dimension of a dispatch allows (the device's
// maxComputeWorkgroupsPerDimension, 65,535 by default). Every row is full
// but the last, whose spare workgroups find their place past the work and
// return. Put before each shader dispatched so (after the prelude, where
// its module is assembled); `row` is the num_workgroups builtin's x, or
// the width the dispatch was written with (the radix sort's tiles_x).

// A workgroup's place in the run.
fn flat_group(wid: vec3<u32>, row: u32) -> u32 {
  return wid.y * row + wid.x;
}

// An invocation's place in the run, `size` invocations to a workgroup.
fn flat_invocation(group: u32, size: u32, lid: u32) -> u32 {
  return group * size + lid;
}
