"""The Celery task that judges one submission. It only calls the service; the message carries only the id."""

from leaderboard.celery import app
from leaderboard.submissions.judging import submission_judge_delivered
from leaderboard.submissions.services import JUDGE_TASK


@app.task(name=JUDGE_TASK, bind=True, acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def judge(self, submission_id: int) -> str:
    return submission_judge_delivered(submission_id=submission_id, worker=self.request.hostname)
