export { FolderLoader, type FolderLoaderOptions } from './folder.loader';
export { isWithin, realRoots, resolveFolder, ROOTS_SETTING, type AllowedFolder } from './folder-path';
export {
  fileSource,
  folderState,
  isReadable,
  walkFolder,
  type FolderDir,
  type FolderFile,
  type FolderState,
  type FolderWalk,
} from './walk';
