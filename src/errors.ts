// The error catalogue and the one error type (src/errors/): import them from here.
export { ERRORS, type ErrorCode, type ErrorEntry, type HttpErrorCode } from './errors/catalogue.js';
export { IdsyncError, asErrorCode, errorEntry, httpStatusOf, isErrorCode, isIdsyncError, problemCodeOf, toIdsyncError } from './errors/idsync-error.js';
