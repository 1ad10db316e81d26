"""Pictures and windows: replay plots, the posed humanoid and its filmstrips, the PyBullet GUI overlay.

Import the modules directly (`npc_ai.viz.replay`, `npc_ai.viz.humanoid`, `npc_ai.viz.gui`); they load
matplotlib or PyBullet only when called.
"""
