"""Support judges: does a cited span say what a claim says? (`pipeline.core.interfaces.SupportJudge`)"""
