"""The web pages: problems, rankings, submitting, following a submission, users, accounts and tokens."""
