/**
 * A view kept in a page's address (`?eye=…&target=…&up=…&fovy=…&mode=fly
 * &renderer=tiles&order=per-pixel`), as app/camera/view-url.ts writes it:
 * read whole, each part that cannot be read named and left at its default,
 * so one typo in a shared link loses only that part. DOM-free.
 */
import { readOrderParam, readRendererParam, readViewMode, readViewParams } from '../app/camera/view-url';
import { DEFAULT_ORDER_SETTING, DEFAULT_RENDERER_SETTING } from '../render/frame-renderer';
import type { ViewLink } from './public-types';

/** The view an address's query names (`new URLSearchParams(location.search)`); what it does not name is the default. */
export function readViewLink(params: URLSearchParams): ViewLink {
  const problems: ViewLink['problems'] = [];
  const read = <T>(what: string, reader: (params: URLSearchParams) => T, fallback: T): T => {
    try {
      return reader(params);
    } catch (error) {
      problems.push({ what, reason: error instanceof Error ? error.message : String(error) });
      return fallback;
    }
  };
  return {
    camera: read('the view', readViewParams, null),
    cameraMode: read('the camera mode', readViewMode, 'orbit'),
    renderer: read('the renderer', readRendererParam, DEFAULT_RENDERER_SETTING),
    order: read('the splat order', readOrderParam, DEFAULT_ORDER_SETTING),
    problems,
  };
}
