/**
 * Splatsort for other pages: `createViewer(container, options)` makes a
 * Gaussian-splat viewer in an element of the page (create-viewer.ts says
 * what it is and what it frees).
 */
export { createViewer } from './create-viewer';
export type { CameraPose, CreateViewerOptions, SceneInput, SplatViewer, SplatViewerEvents, ViewerSettingsInput } from './create-viewer';
export type { LoadOutcome } from '../app/session/scene-loads';
export type { FrameReport } from '../app/frame/frame-engine';
export type { ViewerState } from '../app/session/viewer-state';
