/** Drives a world session from one camera until nothing more is on its way, for the GPU tests of worlds. */
import type { CameraFile } from '../../src/app/camera/camera-file';
import type { WorldSession } from '../../src/app/world/world-session';

/** Updates `session` from `camera`, a task apart, until it has settled; throws, saying where it stands, after 500 updates. */
export async function settleWorld(session: WorldSession, camera: CameraFile): Promise<void> {
  for (let i = 0; i < 500; i++) {
    session.updateCamera(camera);
    if (session.settled) return;
    await new Promise((r) => setTimeout(r, 0));
  }
  throw new Error(`the world did not settle: ${JSON.stringify({ ...session.progress, failed: [...session.progress.failed] })} drawn ${session.frame.drawnSplats}`);
}
