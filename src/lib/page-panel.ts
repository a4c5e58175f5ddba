/**
 * What the viewer page's panel (src/ui/, loaded when a viewer asks for it)
 * gives the viewer it is mounted on, and what it is given: the viewer holds
 * the panel to show, hide and free it, and never knows more of it.
 */
import type { LoadOptions, SceneInput } from './viewer-api';

/** The scene a page opens without a link, or when its link's fails. @internal */
export interface FirstScene {
  src: SceneInput;
  name?: string;
  up?: LoadOptions['up'];
}

/** A mounted panel. @internal */
export interface PagePanel {
  /** Whether the panel is hidden (the U key, or the viewer's setUi(false)). */
  readonly hidden: boolean;
  setHidden(hidden: boolean): void;
  /** Removes the panel from the page with every listener, observer and timer it added. */
  destroy(): void;
}

/** How a panel is mounted: with the scene to open first (the page's link's, else `first`), or none (`openFirst` false: a panel shown later). @internal */
export interface PanelMount {
  first: FirstScene | null;
  openFirst: boolean;
}

/** Loads the panel's module and mounts it on the viewer. @internal */
export type MountPanel = (mount: PanelMount) => Promise<PagePanel>;
