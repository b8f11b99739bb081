/**
 * How a failed conversion reaches a client. Kubernetes' converters return plain Go errors, which
 * the API server answers as a 500 Status with the error's text as the message and no reason
 * (ErrorToAPIStatus), so kubectl prints `Error from server: conversion webhook for ... failed: ...`.
 */
import { ApiError, Status } from '../../meta/api-errors';

/** A conversion that could not be done: 500, no reason, Kubernetes' message. */
export class ConversionError extends ApiError {
  constructor(message: string) {
    super(500, 'Unknown', message);
    this.name = 'ConversionError';
  }

  /** Go's StatusReasonUnknown is the empty string: the Status carries no reason. */
  toStatus(): Status {
    return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: this.message, code: this.code };
  }
}
