export * from './errors.ts';
export {
  signApprovalToken,
  verifyApprovalToken,
  newTokenId,
  MAX_TOKEN_LENGTH,
  MIN_KEY_BYTES,
} from './token.ts';
export type { ApprovalClaims, Decision, VerifyResult } from './token.ts';
export {
  verifySlackSignature,
  slackSignature,
  SLACK_SIGNATURE_HEADER,
  SLACK_TIMESTAMP_HEADER,
  DEFAULT_SLACK_MAX_AGE_SECONDS,
} from './slack-signature.ts';
export type { SlackSignedRequest, SlackVerifyResult } from './slack-signature.ts';
export {
  parseSlackInteraction,
  slackTeamRefusal,
  APPROVE_ACTION_ID,
  REJECT_ACTION_ID,
  MAX_ACTION_VALUE_LENGTH,
  MAX_INTERACTION_BODY_BYTES,
} from './slack-interaction.ts';
export type {
  SlackButtonAction,
  SlackActionId,
  SlackInteractionResult,
} from './slack-interaction.ts';
