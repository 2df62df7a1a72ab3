"""Start-up housekeeping: the garbage collector paused while the first screen is drawn, always resumed."""
import gc


async def test_the_collector_resumes_after_start_up_and_when_the_app_quits_at_once(make_app, monkeypatch):
    assert gc.isenabled()
    monkeypatch.setattr("tutor.app.COLLECTOR_PAUSE_SECONDS", 0.05)
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        for _ in range(200):
            if gc.isenabled():
                break
            await pilot.pause(0.05)
        assert gc.isenabled()
    monkeypatch.setattr("tutor.app.COLLECTOR_PAUSE_SECONDS", 600)
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert not gc.isenabled()  # still drawing, as far as the app knows
    assert gc.isenabled()  # quitting resumed it


async def test_a_collector_switched_off_by_the_host_stays_off(make_app):
    gc.disable()
    try:
        app = make_app()
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
        assert not gc.isenabled()
    finally:
        gc.enable()
