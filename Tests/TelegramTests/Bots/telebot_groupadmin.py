"""A group administration bot as pyTelegramBotAPI's documentation writes one: joiners
welcomed from chat_member updates (chat_member_handler), and ban, mute and delete for the
group's admins, in reply to the message concerned."""
import os

import telebot
from telebot import apihelper, types, util

apihelper.API_URL = os.environ["TELEGRAM_API"] + "/bot{0}/{1}"
apihelper.FILE_URL = os.environ["TELEGRAM_API"] + "/file/bot{0}/{1}"

bot = telebot.TeleBot(os.environ["BOT_TOKEN"])


@bot.chat_member_handler()
def chat_member(update: types.ChatMemberUpdated):
    old, new = update.old_chat_member, update.new_chat_member
    if old.status in ("left", "kicked") and new.status == "member":
        bot.send_message(update.chat.id, f"Welcome, {new.user.first_name}!")
    elif old.status in ("member", "restricted") and new.status in ("left", "kicked"):
        bot.send_message(update.chat.id, f"{new.user.first_name} left.")


def admin_target(message):
    if message.reply_to_message is None:
        bot.reply_to(message, "Reply to a message of the member concerned.")
        return None
    if bot.get_chat_member(message.chat.id, message.from_user.id).status not in ("creator", "administrator"):
        bot.reply_to(message, "Only the group's admins may do that.")
        return None
    return message.reply_to_message


@bot.message_handler(commands=["ban"], chat_types=["group", "supergroup"])
def ban(message):
    target = admin_target(message)
    if target:
        bot.ban_chat_member(message.chat.id, target.from_user.id)
        bot.reply_to(message, f"Banned {target.from_user.first_name}.")


@bot.message_handler(commands=["mute"], chat_types=["group", "supergroup"])
def mute(message):
    target = admin_target(message)
    if target:
        bot.restrict_chat_member(message.chat.id, target.from_user.id, permissions=types.ChatPermissions(can_send_messages=False))
        bot.reply_to(message, f"Muted {target.from_user.first_name}.")


@bot.message_handler(commands=["del"], chat_types=["group", "supergroup"])
def delete(message):
    target = admin_target(message)
    if target:
        bot.delete_message(message.chat.id, target.message_id)
        bot.reply_to(message, "Deleted.")


@bot.message_handler(commands=["admins"], chat_types=["group", "supergroup"])
def admins(message):
    administrators = bot.get_chat_administrators(message.chat.id)
    count = bot.get_chat_member_count(message.chat.id)
    names = sorted(a.user.username for a in administrators)
    bot.reply_to(message, f"Admins: {', '.join(names)} of {count} members")


bot.infinity_polling(allowed_updates=util.update_types)
