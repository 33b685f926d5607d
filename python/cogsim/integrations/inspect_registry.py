"""What inspect loads through this package's ``inspect_ai`` entry point: a task per env id
(``cogsim/wilt_lite``, ...) and the ``cogsim`` model provider (``--model cogsim/oracle``)."""

from cogsim.integrations.inspect_models import scripted_model
from cogsim.integrations.inspect_tasks import register_tasks

TASKS = register_tasks()

__all__ = ["scripted_model", "TASKS"]
