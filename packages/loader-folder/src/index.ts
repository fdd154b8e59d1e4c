export { FolderLoader, type FolderLoaderOptions } from './folder.loader';
export { isWithin, realRoots, resolveFolder, ROOTS_SETTING, type AllowedFolder } from './folder-path';
export {
  fileSource,
  folderFingerprint,
  isReadable,
  walkFolder,
  type FolderFile,
  type FolderWalk,
} from './walk';
