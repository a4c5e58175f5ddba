/**
 * The scenes of a Viewer: the one on screen, and while a load shows the
 * part of its file that has arrived, the one that part replaced, held
 * aside whole (its GPU scene, the camera and fly speed, the up axis, its
 * facts and warnings) to come back if the load does not complete. Owns the
 * GPU scenes' lifetimes; frames each new scene and chooses its up axis.
 * DOM-free.
 */
import type { FrameEngine } from '../frame/frame-engine';
import type { CameraRig, RigSnapshot } from '../camera/camera-rig';
import { boxBounds, framingAxis, sceneBounds, sceneUp, shownUp, WORLD_UP, type SceneUp } from '../camera/framing';
import type { UpAxis } from '../camera/up-axis';
import type { CameraView } from '../camera/orbit-camera';
import type { ViewerSettings } from './viewer-settings';
import type { Emitter } from 'nanoevents';
import type { SceneFacts, UpChoice, ViewerEvents, ViewerState } from './viewer-state';
import type { SplatCloud } from '../../scene/splat-cloud';
import type { SceneSource } from '../frame/frame-source';
import type { WorldSession } from '../world/world-session';
import { WORLD_ANTI_ALIASING } from '../world/world-options';

/** How a scene came to the session: its name, and how to frame it. */
export interface SceneArrival {
  name: string;
  /** The scene's up where the opener knows it (the viewer's own default scene: +y), instead of the guess from its splats. */
  up?: SceneUp;
  /** The view to show the scene from (a shared link's), instead of framing it. */
  view?: CameraView | null;
}

/** The scene on screen, and what framing, picking and the panel need of it. */
interface ShownScene {
  /** Its splats on the GPU, which the session owns (null: none, or a world's, which the world owns). */
  source: SceneSource | null;
  /** Its splats' shapes and opacities (not their colours), for picks. */
  pickCloud: SplatCloud | null;
  facts: SceneFacts | null;
}

const NO_SCENE: ShownScene = { source: null, pickCloud: null, facts: null };

export class SceneSession {
  private shown: ShownScene = NO_SCENE;
  /** What a preview replaced, to come back to if its load does not complete. */
  private held: { scene: ShownScene; rig: RigSnapshot; up: UpChoice; warnings: string[] } | null = null;
  /**
   * The up choice made from a load's first preview, while it stands (the
   * user, a link or the default scene did not decide): the whole scene
   * decides again once it is in, as its first part may hold only the ground
   * or only a wall.
   */
  private upOfPart: UpChoice | null = null;
  /** The world on screen, if one is (its pool is the core's scene). */
  private world: WorldSession | null = null;

  constructor(
    private readonly core: FrameEngine,
    private readonly rig: CameraRig,
    private readonly settings: ViewerSettings,
    private readonly state: ViewerState,
    private readonly events: Emitter<ViewerEvents>,
  ) {}

  /** The world on screen (its owner: it opens, drives and closes with it), or null. */
  get shownWorld(): WorldSession | null {
    return this.world;
  }

  /** What picks hit: the splats of the scene on screen, without colours (null: none). */
  get pickCloud(): SplatCloud | null {
    return this.shown.pickCloud;
  }

  /** The whole of a scene that opened, in place of the one on screen or its preview (both freed). Throws, keeping what is on screen, if it does not fit. */
  showLoaded(cloud: SplatCloud, arrival: SceneArrival, load: { bytes: number | null; loadMs: number }): void {
    const source = this.core.showCloud(cloud, `GpuSplats(${arrival.name})`);
    this.closeWorld();
    const previewed = this.held !== null;
    this.dropHeld();
    this.shown.source?.destroy();
    this.shown = this.sceneOf(source, cloud, { name: arrival.name, partial: false, ...load });
    if (previewed) {
      if (this.upOfPart && this.state.up === this.upOfPart) this.setUp(shownUp(sceneUp(cloud)));
      this.rig.reframe(this.shown.facts!.bounds, this.framingUp());
    } else {
      this.arrive(arrival, sceneUp(cloud, arrival.up));
    }
    this.upOfPart = null;
    this.publish('opened');
  }

  /**
   * Shows the part of a scene that has arrived (a file decoded as it
   * downloads): the first part framed as a new scene, the next ones as the
   * scene growing; what was on screen is held aside until the load ends.
   */
  showPreview(cloud: SplatCloud, arrival: SceneArrival): void {
    let source: SceneSource;
    try {
      source = this.core.showCloud(cloud, `GpuSplats(${arrival.name}, so far)`);
    } catch {
      // A part the GPU cannot hold: no preview; the load itself says what is wrong.
      return;
    }
    const first = this.held === null;
    // A world is not held aside: it goes (with its chunks) as the new scene shows.
    if (first && this.closeWorld()) this.shown = NO_SCENE;
    if (first) this.held = { scene: this.shown, rig: this.rig.save(), up: { ...this.state.up }, warnings: this.state.warnings };
    // The preview before this one.
    else this.shown.source?.destroy();
    this.shown = this.sceneOf(source, cloud, { name: arrival.name, partial: true, bytes: null, loadMs: null });
    if (first) {
      this.arrive(arrival, sceneUp(cloud, arrival.up));
      this.upOfPart = arrival.view || arrival.up ? null : this.state.up;
    } else {
      this.rig.reframe(this.shown.facts!.bounds, this.framingUp());
    }
    this.publish('preview');
  }

  /**
   * A world in place of the scene on screen (freed, as a world before it):
   * framed on its tree's box, up −y as captures are; its chunks stream in
   * as the camera needs them.
   */
  showWorld(world: WorldSession, arrival: SceneArrival, load: { bytes: number | null; loadMs: number }): void {
    this.dropHeld();
    this.shown.source?.destroy();
    this.closeWorld();
    this.world = world;
    this.core.show(world);
    const { outline } = world.files;
    const bounds = boxBounds(outline.bound);
    this.rig.fly.setScene(bounds);
    this.shown = {
      source: null,
      pickCloud: null,
      facts: { name: arrival.name, partial: false, ...load, splats: outline.counts[0] ?? 0, shDegree: 0, bounds, antiAliasing: WORLD_ANTI_ALIASING },
    };
    this.arrive(arrival, WORLD_UP);
    this.upOfPart = null;
    this.publish('opened');
  }

  /** Closes the world on screen, if one is; true if there was one. */
  private closeWorld(): boolean {
    const world = this.world;
    if (!world) return false;
    this.world = null;
    world.close();
    return true;
  }

  /** Ends a preview of a load that did not complete: what was on screen before it comes back. */
  endPreview(): void {
    const held = this.held;
    if (!held) return;
    this.held = null;
    this.upOfPart = null;
    this.core.show(held.scene.source);
    this.shown.source?.destroy();
    this.shown = held.scene;
    this.rig.restore(held.rig);
    this.state.warnings = held.warnings;
    this.setUp(held.up);
    this.publish('restored');
    this.events.emit('camera');
  }

  /** Says which way is up and where that came from; the panel's up axis follows. */
  setUp(choice: UpChoice): void {
    this.settings.upAxis = choice.axis;
    this.state.up = choice;
    this.events.emit('up', choice);
  }

  /** The axis framing uses: the chosen one, or for a levelled view the axis the camera's up is, else −y. */
  framingUp(): UpAxis {
    return framingAxis(this.settings.upAxis, this.rig.camera.up);
  }

  destroy(): void {
    this.closeWorld();
    this.dropHeld();
    this.shown.source?.destroy();
    this.shown = NO_SCENE;
  }

  /** Frees what a preview held aside (a load that completed, or a world, takes its place). */
  private dropHeld(): void {
    if (this.held && this.held.scene.source !== this.shown.source) this.held.scene.source?.destroy();
    this.held = null;
  }

  private sceneOf(source: SceneSource, cloud: SplatCloud, load: Pick<SceneFacts, 'name' | 'partial' | 'bytes' | 'loadMs'>): ShownScene {
    const bounds = sceneBounds(cloud);
    this.rig.fly.setScene(bounds);
    return {
      source,
      pickCloud: { ...cloud, dc: new Float32Array(0), sh: new Float32Array(0), shDegree: 0 },
      facts: { ...load, splats: cloud.count, shDegree: cloud.shDegree, bounds, antiAliasing: cloud.antiAliasing },
    };
  }

  private publish(how: 'opened' | 'preview' | 'restored'): void {
    const facts = this.shown.facts;
    this.state.scene = facts;
    this.state.sceneName = facts?.name ?? '';
    this.state.splats = facts?.splats ?? 0;
    this.events.emit('scene', facts, how);
  }

  /** Frames a new scene or world from the home angle with `up` up, or shows it from the view it arrived with. */
  private arrive(arrival: SceneArrival, up: Readonly<SceneUp>): void {
    this.setUp(this.rig.arrive(this.shown.facts!.bounds, up, arrival.view));
    this.events.emit('camera');
  }
}
