extends Node
## The RPCs of the world example (examples/world/server.py reads them from here): the client
## steers and fires, the server welcomes it and answers each shot. Only signals on this side.

## The server's welcome: our avatar's entity id, the tick rate and the interpolation delay.
signal welcomed(avatar: int, rate: int, delay: float)
## The server's answer to a shot: the entity hit (-1: a miss) and the tick it was tested at.
signal shot_result(target: int, view_tick: float, where: Vector2)


@rpc("authority", "call_remote", "reliable")
func welcome(avatar: int, rate: int, delay: float) -> void:
	welcomed.emit(avatar, rate, delay)


## The stick: a direction at most 1 long, sent every frame (a lost one is replaced by the next).
@rpc("any_peer", "call_remote", "unreliable_ordered")
func move(_x: float, _y: float) -> void:
	pass


## A shot along aim, as the world looked at view_tick (the render tick of the frame it was
## fired in: fractional, interpolated).
@rpc("any_peer", "call_remote", "reliable")
func fire(_aim: Vector2, _view_tick: float) -> void:
	pass


@rpc("authority", "call_remote", "reliable")
func shot(target: int, view_tick: float, where: Vector2) -> void:
	shot_result.emit(target, view_tick, where)
