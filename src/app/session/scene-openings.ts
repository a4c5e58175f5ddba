/**
 * How a Viewer opens what it shows: a scene loaded from a source (one load
 * at a time, the newest wins; the part that has arrived shown in place of
 * what was on screen, which comes back when the load does not complete),
 * or a Streamed SOG world once its index is read. Both share one load-state
 * path: the state's loading and progress rows and the loadStart, progress
 * and loadEnd events. DOM-free.
 */
import type { Emitter } from 'nanoevents';
import { SceneLoads, type LoadOutcome } from './scene-loads';
import type { SceneArrival, SceneSession } from './scene-session';
import type { ViewerEvents, ViewerState } from './viewer-state';
import type { ViewerSettings } from './viewer-settings';
import type { WorldSession } from '../world/world-session';
import { worldOptionsFor } from '../world/world-options';
import type { WorldOpening } from '../world/world-opening';
import type { SplatCloud } from '../../scene/splat-cloud';
import type { LoadLimits } from '../../io/load-limits';
import type { LoadedScene, LoadProgressReport } from '../../io/splat-loader';

/** Loads a source: a worker in the browser, the file system in Node; rejects with an AbortError once `signal` aborts. */
export type SceneLoader<S> = (
  source: S,
  options: { signal: AbortSignal; onProgress: (p: LoadProgressReport) => void; onPreview?: (cloud: SplatCloud) => void; limits: LoadLimits },
) => Promise<LoadedScene>;

/** The failed chunks a message names (each with why), the rest counted: the state's warnings list them all. */
const FAILED_CHUNKS_SHOWN = 3;

/** The opening of `source` as a Streamed SOG world, or null when it is not one (a scene, for `load`). */
export type WorldOpener<S> = (source: S) => WorldOpening | null;

export interface OpenOptions extends SceneArrival {
  /**
   * The message of a load error shown before stays up (the default scene
   * standing in for a link that failed, whose message says why). The
   * state's lastError clears all the same: a scene opened.
   */
  keepError?: boolean;
}

export class SceneOpenings<S> {
  private readonly loads: SceneLoads<S, LoadedScene, LoadProgressReport, SplatCloud>;
  /** The opening of a world's index in progress (a later open cancels it). */
  private worldOpening: AbortController | null = null;
  /**
   * The scene last opened, whole (colours and SH too, which the GPU holds
   * but picks do not need): what "save scene as" writes.
   */
  openedCloud: SplatCloud | null = null;

  constructor(
    private readonly device: GPUDevice,
    load: SceneLoader<S>,
    private readonly openWorldOf: WorldOpener<S> | undefined,
    private readonly limits: LoadLimits,
    private readonly session: SceneSession,
    private readonly settings: ViewerSettings,
    private readonly state: ViewerState,
    private readonly events: Emitter<ViewerEvents>,
  ) {
    this.loads = new SceneLoads((source, o) => load(source, { ...o, limits }));
  }

  /** A scene, or the world `source` is the index of, in place of what is on screen (Viewer.open). */
  async open(source: S, options: OpenOptions): Promise<LoadOutcome> {
    const world = this.openWorldOf?.(source);
    if (world) return this.openWorld(world, options);
    this.worldOpening?.abort();
    // The preview of a load this one replaces goes: the scene before it comes back.
    this.session.endPreview();
    const { name } = options;
    return this.loading(name, async (started) => {
      const outcome = await this.loads.run(source, {
        progress: (p) => {
          this.state.load = { name, progress: p };
          this.events.emit('progress', p);
        },
        preview: (cloud) => this.session.showPreview(cloud, options),
        show: (loaded) => this.opened(loaded, options, performance.now() - started),
        fail: (error) => this.fail(name, error),
      });
      if (outcome === 'failed' || outcome === 'cancelled') this.session.endPreview();
      return outcome;
    });
  }

  /** A world in place of what is on screen once its index is read (Viewer.openWorld). */
  async openWorld(opening: WorldOpening, options: OpenOptions): Promise<LoadOutcome> {
    this.worldOpening?.abort();
    const controller = new AbortController();
    this.loads.cancel();
    this.session.endPreview();
    this.worldOpening = controller;
    return this.loading(options.name, async (started) => {
      let outcome: LoadOutcome;
      try {
        const files = await opening({ signal: controller.signal, limits: this.limits });
        // The world's own code (its choice, stream and pool) comes with the first world: a page that
        // shows scenes only does not download it (the package's core stays within its size budget).
        const { WorldSession: Session } = await import('../world/world-session');
        controller.signal.throwIfAborted();
        this.showWorld(new Session(this.device, files, worldOptionsFor(this.device, this.settings.worldBudget)), options, performance.now() - started);
        outcome = 'opened';
      } catch (error) {
        outcome = controller.signal.aborted ? (this.worldOpening === controller ? 'cancelled' : 'superseded') : 'failed';
        if (outcome === 'failed') this.fail(options.name, error);
      }
      if (outcome !== 'superseded') this.worldOpening = null;
      return outcome;
    });
  }

  /** Cancels the load or world opening in progress, if any: what was on screen before it stays. */
  cancel(): void {
    this.loads.cancel();
    this.worldOpening?.abort();
  }

  /** Reports that `name` could not be opened (a load's failure, or a source refused before any load). */
  fail(name: string, error: unknown): void {
    const reason = error instanceof Error ? error.message : String(error);
    this.state.lastError = `Could not open ${name}: ${reason}`;
    this.events.emit('failed', { name, reason });
  }

  /**
   * The load state around one opening, a scene's or a world's: announced,
   * then ended with its outcome, unless a later opening replaced it (which
   * then holds the progress).
   */
  private async loading(name: string, open: (started: number) => Promise<LoadOutcome>): Promise<LoadOutcome> {
    this.state.loading = true;
    this.state.load = { name, progress: null };
    this.events.emit('loadStart', name);
    const outcome = await open(performance.now());
    if (outcome !== 'superseded') {
      this.state.loading = false;
      this.state.load = null;
      this.events.emit('loadEnd', outcome);
    }
    return outcome;
  }

  private opened({ cloud, warnings, bytes }: LoadedScene, options: OpenOptions, loadMs: number): void {
    // The scene as trained: its SH degree (before the views hear of it).
    this.settings.shDegree = cloud.shDegree;
    this.state.lastError = null;
    this.state.warnings = [...warnings];
    this.session.showLoaded(cloud, options, { bytes, loadMs });
    this.openedCloud = cloud;
    this.events.emit('opened', { name: options.name, cloud, warnings, keepError: options.keepError ?? false });
  }

  /**
   * A world whose index was read, in place of what is on screen: chunks
   * that fail are said once, together (each a warning, and one message
   * naming them), their regions drawn from the levels that loaded.
   */
  private showWorld(world: WorldSession, options: OpenOptions, loadMs: number): void {
    world.onFailed = (failed) => {
      this.state.warnings.push(...failed);
      const title = failed.length === 1 ? 'A chunk of the world could not be read' : `${failed.length} chunks of the world could not be read`;
      const shown = failed.slice(0, FAILED_CHUNKS_SHOWN).join('; ');
      const more = failed.length > FAILED_CHUNKS_SHOWN ? `; and ${failed.length - FAILED_CHUNKS_SHOWN} more (the warnings list them)` : '';
      this.events.emit('message', { title, text: `${shown}${more}. Their regions are drawn from the levels that loaded.`, tone: 'notice' });
    };
    this.state.lastError = null;
    this.state.warnings = [];
    this.openedCloud = null;
    this.session.showWorld(world, options, { bytes: null, loadMs });
  }
}
