export {
  extractFile,
  fileFormat,
  FILE_EXTENSIONS,
  type FileExtractOptions,
  type FileFormat,
  type FileInput,
  type FileOutcome,
} from './extract-file';
export { DEFAULT_MAX_PAGES, readPdf, type PdfLimits } from './pdf';
