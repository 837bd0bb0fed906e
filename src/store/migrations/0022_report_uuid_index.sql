-- A shared report is looked up by its uuid (GET /reports/<report_uuid>); revoked reports are NULL.
CREATE UNIQUE INDEX campaigns_report_uuid ON campaigns (report_uuid) WHERE report_uuid IS NOT NULL;
